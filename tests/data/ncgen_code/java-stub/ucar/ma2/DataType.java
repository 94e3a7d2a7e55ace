package ucar.ma2;

/** Stub of netCDF-Java's DataType: the atomic types. */
public enum DataType {
  BYTE, CHAR, SHORT, INT, LONG, FLOAT, DOUBLE, STRING, UBYTE, USHORT, UINT, ULONG
}
