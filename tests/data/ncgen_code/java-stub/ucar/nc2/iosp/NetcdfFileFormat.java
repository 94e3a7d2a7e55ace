package ucar.nc2.iosp;

/** Stub of netCDF-Java's NetcdfFileFormat. */
public enum NetcdfFileFormat {
  NETCDF3, NETCDF3_64BIT_OFFSET, NETCDF3_64BIT_DATA, NETCDF4, NETCDF4_CLASSIC
}
