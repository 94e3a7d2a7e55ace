//! Opening an input file with messages that say what is wrong and what to do.

use std::path::Path;

use anyhow::anyhow;
use ncio::NcFile;

/// Whether `path` is a URL (NCZarr `file://...#mode=nczarr`, DAP, S3) rather than a path.
fn is_url(path: &str) -> bool {
    path.contains("://")
}

/// Opens `path` for reading; the error names the file and the problem.
pub fn open(path: &str) -> anyhow::Result<NcFile> {
    if !is_url(path) {
        let p = Path::new(path);
        match std::fs::metadata(p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(anyhow!("{path}: no such file"));
            }
            Err(e) => return Err(anyhow!("{path}: cannot read: {e}")),
            Ok(meta) if meta.is_dir() => {
                return Err(anyhow!(
                    "{path}: is a directory, not a netCDF file (for an NCZarr store use \
                     file://{path}#mode=nczarr,file)"
                ));
            }
            Ok(meta) if meta.len() == 0 => {
                return Err(anyhow!("{path}: empty file, not a netCDF file"));
            }
            Ok(_) => {}
        }
    }
    NcFile::open(path).map_err(|e| match e.code {
        // NC_ENOTNC: not a netCDF file.
        -51 => anyhow!("{path}: not a netCDF file (unknown format)"),
        // NC_EHDFERR or NC_ENOTNC4-class failures on an HDF5 signature: damaged file.
        -101 | -107 => anyhow!(
            "{path}: truncated or corrupt netCDF-4/HDF5 file ({})",
            e.message
        ),
        _ => anyhow!("{path}: {}", e.message),
    })
}
