package ucar.nc2;

/** Stub of netCDF-Java's Dimension. */
public class Dimension {
  public static Builder builder() {
    return new Builder();
  }

  /** Stub of Dimension.Builder. */
  public static class Builder {
    public Builder setName(String shortName) {
      return this;
    }

    public Builder setLength(int n) {
      return this;
    }

    public Builder setIsUnlimited(boolean b) {
      return this;
    }

    public Dimension build() {
      return new Dimension();
    }
  }
}
