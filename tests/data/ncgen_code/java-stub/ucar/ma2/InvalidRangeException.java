package ucar.ma2;

/** Stub of netCDF-Java's InvalidRangeException. */
public class InvalidRangeException extends Exception {
}
