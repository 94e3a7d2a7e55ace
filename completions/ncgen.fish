complete -c ncgen -s l -d 'Output: b (a netCDF file), or a program writing it: c, f77, python or java' -r -f -a "b\t''
c\t''
f77\t''
python\t''
java\t''"
complete -c ncgen -s k -d 'Output format: classic (nc3, 1), 64-bit offset (nc6, 2), cdf5 (nc5, 64-bit data, 5), netCDF-4 (nc4, 3), netCDF-4 classic model (nc7, 4)' -r -f -a "classic\t''
nc3\t''
64-bit-offset\t''
nc6\t''
cdf5\t''
nc5\t''
netCDF-4\t''
nc4\t''
netcdf-4-classic\t''
nc7\t''"
complete -c ncgen -s v -d 'Deprecated alias of -k' -r
complete -c ncgen -s o -d 'Output file name (default: the CDL file\'s name with .nc, in the working directory)' -r
complete -c ncgen -s N -d 'Dataset name (instead of the one in the CDL)' -r
complete -c ncgen -s M -d 'Name of the main function in generated code (accepted, unused)' -r
complete -c ncgen -s D -d 'Debug level (accepted, unused)' -r
complete -c ncgen -s L -d 'Log level (accepted, unused)' -r
complete -c ncgen -s B -d 'Buffer size (accepted for compatibility, unused)' -r
complete -c ncgen -s W -d 'Whole-variable size limit (accepted for compatibility, unused)' -r
complete -c ncgen -s j -l jobs -d 'Threads that convert, encode and write values while the CDL is read (default: every core, at most 8); the output is the same for any number' -r
complete -c ncgen -s b -d 'Write a binary netCDF file (the default when -o or -k is given)'
complete -c ncgen -s n -d 'Write a binary netCDF file with a .cdf extension (old form of -b)'
complete -c ncgen -s c -d 'Generate C code (same as -l c)'
complete -c ncgen -s f -d 'Generate Fortran 77 code (same as -l f77)'
complete -c ncgen -s 3 -d 'Classic format (same as -k classic)'
complete -c ncgen -s 4 -d 'netCDF-4 format (same as -k netCDF-4)'
complete -c ncgen -s 5 -d 'CDF5 format (same as -k cdf5)'
complete -c ncgen -s 6 -d '64-bit offset format (same as -k "64-bit offset")'
complete -c ncgen -s 7 -d 'netCDF-4 classic model (same as -k "netCDF-4 classic model")'
complete -c ncgen -s x -d 'No fill: do not pre-fill variables (faster for large files)'
complete -c ncgen -s d -d 'Debug output, the same as -D 1 (accepted, unused)'
complete -c ncgen -s 1 -d 'Accepted and ignored, as by the reference (its option string has -1 and nothing reads it)'
complete -c ncgen -s P -d 'Build the file in memory and write it at the end (the reference\'s "diskless with persistence"; the file written is the same)'
complete -c ncgen -s H -d 'Header only: ignore the data sections'
complete -c ncgen -l list-filters -d 'List every filter nctools knows and every plugin found, with where each comes from (built-in, HDF5, plugin file, not available)'
complete -c ncgen -l json -d 'With --list-filters: print JSON for scripts'
complete -c ncgen -s h -l help -d 'Print help'
complete -c ncgen -s V -l version -d 'Print version'
