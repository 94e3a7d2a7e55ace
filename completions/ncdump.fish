complete -c ncdump -s v -d 'Data for variable(s) VAR1,... only' -r
complete -c ncdump -s b -d 'Brief annotations for C or Fortran indices in data' -r -f -a "c\t''
f\t''"
complete -c ncdump -s f -d 'Full annotations for C or Fortran indices in data' -r -f -a "c\t''
f\t''"
complete -c ncdump -s l -d 'Line length maximum in data section (default 80)' -r
complete -c ncdump -s n -d 'Name for netCDF (default derived from file name)' -r
complete -c ncdump -s p -d 'Display floating-point values with less precision' -r
complete -c ncdump -s d -d 'Display floating-point values with less precision, keeping C_format attributes (the old form of -p)' -r
complete -c ncdump -s g -d 'Data and metadata for group(s) GRP1,... only' -r
complete -c ncdump -s X -d 'Special options: -Xp suppresses the properties attribute, -XF prints the type of every _FillValue attribute, -Xm reads in memory; repeatable' -r
complete -c ncdump -s L -d 'Set log level to n (>= 0); ignored, as logging is not enabled' -r
complete -c ncdump -s j -l jobs -d 'Threads that decode chunks and format values (default: every core, at most 8); the output is the same for any number' -r
complete -c ncdump -s c -d 'Coordinate variable data and header information'
complete -c ncdump -s h -d 'Header information only, no data'
complete -c ncdump -s k -d 'Output kind of netCDF file'
complete -c ncdump -s K -d 'Output extended format information (the storage format and open mode)'
complete -c ncdump -s s -d 'Output special (virtual) attributes'
complete -c ncdump -s t -d 'Output time data as date-time strings'
complete -c ncdump -s i -s T -d 'Output time data as date-time strings with ISO-8601 \'T\' separator'
complete -c ncdump -s w -d 'With client-side caching of variables for DAP URLs'
complete -c ncdump -s x -d 'Output XML (NcML) instead of CDL'
complete -c ncdump -s F -d 'Output _Filter and _Codecs instead of _Fletcher32, _Shuffle, and _Deflate'
complete -c ncdump -l list-filters -d 'List every filter nctools knows and every plugin found, with where each comes from (built-in, HDF5, plugin file, not available)'
complete -c ncdump -l filters -d 'Show each filtered variable\'s pipeline with its parameters decoded, whether each filter is available here, and stored vs. uncompressed size (reads no data)'
complete -c ncdump -l allow-truncated -d 'Read a netCDF classic file shorter than its header says it must be: the values past its end read as fill values, with a warning (without it, such a file is an error and nothing is read)'
complete -c ncdump -l json -d 'With --list-filters or --filters: print JSON for scripts'
complete -c ncdump -l help -d 'Print help'
complete -c ncdump -s V -l version -d 'Print version'
