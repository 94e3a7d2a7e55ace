//! ncdump's `-K`: the extended format of the input and the mode it was opened with, in
//! the words of netCDF-C's ncdump (`classic mode=00000000`, `HDF5 mode=00001000`, ...).

use anyhow::anyhow;
use ncmodel::Format;

/// libnetcdf's extended format numbers (`NC_FORMATX_*` in netcdf.h).
mod formatx {
    pub const UNDEFINED: i32 = 0;
    pub const NC3: i32 = 1;
    pub const HDF5: i32 = 2;
    pub const HDF4: i32 = 3;
    pub const PNETCDF: i32 = 4;
    pub const DAP2: i32 = 5;
    pub const DAP4: i32 = 6;
    pub const NCZARR: i32 = 10;
}

/// Mode bits of `nc_open` (netcdf.h).
mod mode {
    pub const DISKLESS: i32 = 0x0008;
    pub const CDF5: i32 = 0x0020;
    pub const OFFSET64: i32 = 0x0200;
}

/// The extended format and open mode of an input: what libnetcdf says when it opened the
/// file (`reported`), else what the schema's `format` implies for nctools' own readers
/// (classic files; Zarr stores, which libnetcdf calls NCZarr). `in_memory` is `-Xm`,
/// which adds `NC_DISKLESS` to the mode as the reference's diskless open does.
pub fn extended_format(
    reported: Option<(i32, i32)>,
    format: Format,
    in_memory: bool,
) -> (i32, i32) {
    let (kind, mode) = reported.unwrap_or(match format {
        Format::Classic => (formatx::NC3, 0),
        Format::Offset64 => (formatx::NC3, mode::OFFSET64),
        Format::Cdf5 => (formatx::NC3, mode::CDF5),
        Format::Netcdf4 | Format::Netcdf4Classic => (formatx::NCZARR, 0),
    });
    (
        kind,
        if in_memory {
            mode | mode::DISKLESS
        } else {
            mode
        },
    )
}

/// The line `ncdump -K` prints for an extended format and mode, or the reference's error
/// for a format it has no name for (NCZarr among them: netCDF-C's ncdump, 4.9.0 to
/// 4.10.1, stops with `unrecognized extended format: 10` on every Zarr store).
pub fn describe(kind: i32, mode: i32) -> anyhow::Result<String> {
    let name = match kind {
        formatx::NC3 if mode & mode::CDF5 != 0 => "64-bit data",
        formatx::NC3 if mode & mode::OFFSET64 != 0 => "64-bit offset",
        formatx::NC3 => "classic",
        formatx::HDF5 => "HDF5",
        formatx::HDF4 => "HDF4",
        formatx::PNETCDF => "PNETCDF",
        formatx::DAP2 => "DAP2",
        formatx::DAP4 => "DAP4",
        formatx::UNDEFINED => "unknown",
        other => return Err(anyhow!("unrecognized extended format: {other}")),
    };
    Ok(format!("{name} mode={mode:08x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_reads_as_the_reference_prints_it() {
        let line = |format, in_memory| {
            let (kind, mode) = extended_format(None, format, in_memory);
            describe(kind, mode).unwrap_or_else(|e| e.to_string())
        };
        assert_eq!(line(Format::Classic, false), "classic mode=00000000");
        assert_eq!(line(Format::Offset64, true), "64-bit offset mode=00000208");
        assert_eq!(line(Format::Cdf5, false), "64-bit data mode=00000020");
        assert_eq!(
            line(Format::Netcdf4, false),
            "unrecognized extended format: 10"
        );
        assert_eq!(
            describe(2, 0x1000).unwrap_or_default(),
            "HDF5 mode=00001000"
        );
        assert_eq!(describe(5, 0).unwrap_or_default(), "DAP2 mode=00000000");
        assert_eq!(
            extended_format(Some((2, 0x1008)), Format::Netcdf4, true),
            (2, 0x1008)
        );
    }
}
