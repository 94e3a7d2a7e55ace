package ucar.nc2;

import java.util.List;
import ucar.ma2.DataType;

/** Stub of netCDF-Java's Variable. */
public class Variable {
  public static Builder<?> builder() {
    return new Builder<>();
  }

  /** Stub of Variable.Builder. */
  public static class Builder<T extends Builder<T>> {
    public T setName(String shortName) {
      return self();
    }

    public T setDataType(DataType dataType) {
      return self();
    }

    public T setParentGroupBuilder(Group.Builder parent) {
      return self();
    }

    public T setDimensions(List<Dimension> dims) {
      return self();
    }

    public T addAttribute(Attribute att) {
      return self();
    }

    @SuppressWarnings("unchecked")
    protected T self() {
      return (T) this;
    }
  }
}
