package ucar.nc2;

/** Stub of netCDF-Java's Group. */
public class Group {
  public static Builder builder() {
    return new Builder();
  }

  /** Stub of Group.Builder. */
  public static class Builder {
    public Builder setName(String shortName) {
      return this;
    }

    public Builder addGroup(Builder nested) {
      return this;
    }

    public Builder addDimension(Dimension dim) {
      return this;
    }

    public Builder addVariable(Variable.Builder<?> variable) {
      return this;
    }

    public Builder addAttribute(Attribute att) {
      return this;
    }
  }
}
