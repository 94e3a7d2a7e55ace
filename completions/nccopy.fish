complete -c nccopy -s k -d 'Output format: classic (nc3, 1), 64-bit offset (nc6, 2), cdf5 (nc5, 64-bit data, 5), netCDF-4 (nc4, 3), netCDF-4 classic model (nc7, 4)' -r -f -a "classic\t''
nc3\t''
64-bit-offset\t''
nc6\t''
cdf5\t''
nc5\t''
netCDF-4\t''
nc4\t''
netcdf-4-classic\t''
nc7\t''"
complete -c nccopy -s d -d 'Deflate level 1-9 for every variable (0 removes deflate only)' -r
complete -c nccopy -s c -d 'Chunking: dim/n,dim2/n2,... (per dimension), var:n1,n2,... (per variable), var:contiguous, var:compact, var: (unchunked), / (no chunking at all); repeatable' -r
complete -c nccopy -s v -d 'Copy the data of these variables only (all declarations are kept)' -r
complete -c nccopy -s V -d 'Copy these variables only (with all dimensions and group attributes)' -r
complete -c nccopy -s g -d 'Copy the data of these groups only' -r
complete -c nccopy -s G -d 'Copy these groups only' -r
complete -c nccopy -s m -d 'Copy buffer size in bytes (suffix K, M, G or T: powers of 1000, as in netCDF-C; default 16 MiB): bounds the memory used' -r
complete -c nccopy -s h -d 'Chunk cache size per variable in bytes (suffix K, M, G or T: powers of 1000)' -r
complete -c nccopy -s e -d 'Number of chunk slots in each variable\'s chunk cache' -r
complete -c nccopy -l shards -d 'Zarr version 3 output only: store a variable\'s chunks in shards (one object each), VAR:n1,n2,... inner chunks per shard along each dimension, VAR:SIZE (e.g. 64M) as many as fit in SIZE bytes of values, VAR:none; * for every variable (a size or none); repeatable' -r
complete -c nccopy -l template -d 'Zarr output: declare a store for many region writes (--region): the root dimension DIM gets length N; variables along DIM get their metadata only, the others are copied' -r
complete -c nccopy -l region -d 'Write the input\'s records into records START to END (END excluded) of DIM of an existing Zarr store made with --template: chunks only, so that jobs writing disjoint chunk-aligned regions may run at once' -r
complete -c nccopy -l append -d 'Append the input\'s records along DIM, the unlimited (or any root) dimension of an existing Zarr store, after checking that the input matches the store; the store\'s metadata takes the new length last, once the chunks are written' -r
complete -c nccopy -s F -d 'Filters for output variables (see below); repeatable' -r -f -a "none\t''
*\,none\t''
*\,deflate\,5\t''
*\,shuffle|deflate\,5\t''
*\,bzip2\,9\t''
*\,zstd\,3\t''
*\,shuffle|zstd\,3\t''
*\,lz4\t''
*\,blosc\t''
*\,fletcher32\t''
*\,szip\,32\,32\t''"
complete -c nccopy -s L -d 'Log level (accepted for compatibility; libnetcdf logging is not built in)' -r
complete -c nccopy -s M -d 'Minimum size in bytes of a fixed-size variable that keeps or gets chunking (default 8192)' -r
complete -c nccopy -l quantize -d 'Quantize float and double variables: VARS,ALGORITHM,N with ALGORITHM bitgroom or granularbr (N significant digits) or bitround (N bits); repeatable' -r
complete -c nccopy -s j -l jobs -d 'Threads that decode and encode chunks (default: every core, at most 8); the output is the same for any number' -r
complete -c nccopy -l try-filters -d 'Try filter pipelines on a sample of each variable\'s chunks and report ratio and speeds, with a suggestion; writes nothing. LIST: pipelines separated by `;` (default: deflate, zstd, bzip2, blosc and lz4 at several levels, with and without shuffle); with --quantize, each quantization is tried before each pipeline' -r
complete -c nccopy -l kerchunk -d 'Write kerchunk version 1 references (JSON) to every chunk of the netCDF-4 inputs into REFS instead of copying: every positional argument is then an input' -r
complete -c nccopy -l concat -d 'With --kerchunk and several inputs: the root dimension to combine them along, in the order given' -r
complete -c nccopy -s 3 -d 'Classic format (same as -k classic)'
complete -c nccopy -s 4 -d 'netCDF-4 format (same as -k netCDF-4)'
complete -c nccopy -s 5 -d 'CDF5 format (same as -k cdf5)'
complete -c nccopy -s 6 -d '64-bit offset format (same as -k "64-bit offset")'
complete -c nccopy -s 7 -d 'netCDF-4 classic model (same as -k "netCDF-4 classic model")'
complete -c nccopy -s s -d 'Add the shuffle filter to every variable but scalars, filtered or not (it helps the compression after it; alone it only reorders the bytes)'
complete -c nccopy -s u -d 'Make unlimited dimensions fixed-size'
complete -c nccopy -s w -d 'Build the output in memory and write it at the end'
complete -c nccopy -s r -d 'Read the whole input into memory first'
complete -c nccopy -s x -d 'Chunk caches sized for each variable\'s chunks (the reference\'s experimental option; nctools always sizes each output variable\'s cache for the chunks it writes)'
complete -c nccopy -l allow-truncated -d 'Read a netCDF classic file shorter than its header says it must be: the values past its end read as fill values, with a warning (without it, such a file is an error and nothing is read)'
complete -c nccopy -l allow-overlap -d 'With --append: append even when the input\'s coordinates along DIM do not increase from the store\'s last one (a duplicate or overlapping range)'
complete -c nccopy -l dry-run -d 'Print each output variable\'s filters and why (FULL_PATH<TAB>FILTERS<TAB>WHY), write nothing'
complete -c nccopy -l recode -d 'Decode and encode every chunk, even of variables whose filters, chunks, type and byte order do not change (by default their stored chunks are copied as they are)'
complete -c nccopy -l list-filters -d 'List every filter nctools knows and every plugin found, with where each comes from (built-in, HDF5, plugin file, not available)'
complete -c nccopy -l json -d 'With --list-filters or --try-filters: print JSON for scripts'
complete -c nccopy -l help -d 'Print help'
complete -c nccopy -l version -d 'Print version'
