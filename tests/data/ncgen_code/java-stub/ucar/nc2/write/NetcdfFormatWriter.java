package ucar.nc2.write;

import java.io.Closeable;
import java.io.IOException;
import ucar.ma2.Array;
import ucar.ma2.InvalidRangeException;
import ucar.nc2.Group;
import ucar.nc2.iosp.NetcdfFileFormat;

/** Stub of netCDF-Java's NetcdfFormatWriter. */
public class NetcdfFormatWriter implements Closeable {
  public static Builder createNewNetcdf3(String location) {
    return new Builder();
  }

  public static Builder createNewNetcdf4(String location) {
    return new Builder();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Stub of NetcdfFormatWriter.Builder. */
  public static class Builder {
    public Builder setLocation(String location) {
      return this;
    }

    public Builder setFormat(NetcdfFileFormat format) {
      return this;
    }

    public Builder setFill(boolean fill) {
      return this;
    }

    public Group.Builder getRootGroup() {
      return Group.builder();
    }

    public NetcdfFormatWriter build() throws IOException {
      return new NetcdfFormatWriter();
    }
  }

  public void write(String varName, int[] origin, Array values) throws IOException, InvalidRangeException {
  }

  @Override
  public void close() throws IOException {
  }
}
