# Writes the CDL of the demo's input: a day of hourly temperatures on a 2.5-degree grid
# (24 x 73 x 144 floats, rounded to 0.01 K, as model output often is), time along an
# unlimited dimension chunked one step at a time, as netCDF4-python writes daily files.
BEGIN {
  nt = 24; ny = 73; nx = 144; pi = atan2(0, -1)
  print "netcdf sample {"
  print "dimensions:"
  print "\ttime = UNLIMITED ;"
  print "\tlat = " ny " ;"
  print "\tlon = " nx " ;"
  print "variables:"
  print "\tdouble time(time) ;"
  print "\t\ttime:units = \"hours since 2026-01-01\" ;"
  print "\tfloat lat(lat) ;"
  print "\t\tlat:units = \"degrees_north\" ;"
  print "\tfloat lon(lon) ;"
  print "\t\tlon:units = \"degrees_east\" ;"
  print "\tfloat temperature(time, lat, lon) ;"
  print "\t\ttemperature:units = \"K\" ;"
  print "\t\ttemperature:_FillValue = -999.f ;"
  print "\t\ttemperature:_ChunkSizes = 1, " ny ", " nx " ;"
  print "data:"
  printf " time ="
  for (t = 0; t < nt; t++) printf "%s %d", (t ? "," : ""), t
  print " ;"
  printf " lat ="
  for (y = 0; y < ny; y++) printf "%s %.1f", (y ? "," : ""), -90 + 2.5 * y
  print " ;"
  printf " lon ="
  for (x = 0; x < nx; x++) printf "%s %.1f", (x ? "," : ""), 2.5 * x
  print " ;"
  printf " temperature ="
  n = 0
  for (t = 0; t < nt; t++)
    for (y = 0; y < ny; y++)
      for (x = 0; x < nx; x++) {
        lat = (-90 + 2.5 * y) * pi / 180
        lon = 2.5 * x * pi / 180
        v = 250 + 40 * cos(lat) + 8 * cos(lat) * sin(lon - 2 * pi * t / 24)
        printf "%s%s%.2f", (n ? "," : ""), (n % 8 ? " " : "\n  "), v
        n++
      }
  print " ;"
  print "}"
}
