package ucar.ma2;

/** Stub of netCDF-Java's Array. */
public abstract class Array {
  /** An array of the given type and shape over a Java array of values. */
  public static Array factory(DataType dataType, int[] shape, Object storage) {
    return null;
  }
}
