package ucar.nc2;

import ucar.ma2.Array;

/** Stub of netCDF-Java's Attribute. */
public class Attribute {
  /** A text attribute. */
  public Attribute(String name, String val) {
  }

  /** An attribute holding the values of an Array. */
  public static Attribute fromArray(String name, Array values) {
    return null;
  }
}
