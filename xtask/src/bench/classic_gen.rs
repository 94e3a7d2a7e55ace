//! The bench's synthetic input files, written directly as 64-bit offset classic files (no
//! netCDF library needed; the reference `nccopy` then converts them to netCDF-4).
//!
//! Three shapes, each sized to about the asked number of MB:
//! - [`write_floats`]: `temp` (float) and `pres` (double), both `(time, lat, lon)` on a
//!   180 x 360 grid, no attributes (the ncdump and ncgen cases).
//! - [`write_nccopy_input`]: float `orog(lat, lon)` and `temp`, `precip`, `wind(time, lat,
//!   lon)` on a 360 x 720 grid, with coordinates and attributes (the nccopy and filter
//!   cases).
//! - [`write_unlimited`]: float `tas` and `pr(time, lat, lon)` on a 360 x 720 grid, with
//!   time as the record (unlimited) dimension (the cases on the shape real files have).
//!
//! The values are smooth fields with a little grid-scale noise or many zeros, so that
//! compressors see realistic data. They are computed in double precision and stored as
//! the variable's type.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};
use classic::testfile::{TestFile, TestVar};

const NC_CHAR: u32 = 2;
const NC_FLOAT: u32 = 5;
const NC_DOUBLE: u32 = 6;

/// A variable of a generated file: name, type, dimension ids, text attributes, and its
/// size in bytes (of one record, for a record variable).
struct VarHeader {
    name: &'static str,
    nc_type: u32,
    dims: Vec<u64>,
    attrs: Vec<(&'static str, &'static str)>,
    vsize: u64,
}

/// Text attributes as the header builder takes them.
fn text_atts(attrs: &[(&'static str, &'static str)]) -> Vec<(&'static str, u32, Vec<u8>, u64)> {
    attrs
        .iter()
        .map(|(key, value)| (*key, NC_CHAR, value.as_bytes().to_vec(), value.len() as u64))
        .collect()
}

/// Writes the CDF-2 header ([`classic::testfile::TestFile`]) of a file whose variables'
/// data lie one after the other in their order (fixed-size ones first), just past it.
fn write_header(
    out: &mut impl Write,
    numrecs: u64,
    dims: &[(&'static str, u64)],
    global: &[(&'static str, &'static str)],
    vars: &[VarHeader],
) -> Result<()> {
    let file = TestFile {
        version: 2,
        numrecs,
        dims: dims.to_vec(),
        global_atts: text_atts(global),
        vars: vars
            .iter()
            .map(|v| TestVar {
                name: v.name,
                dims: v.dims.clone(),
                nc_type: v.nc_type,
                atts: text_atts(&v.attrs),
            })
            .collect(),
    };
    // vsize is 32 bits; the format caps it for variables past 4 GiB.
    let vsizes: Vec<u64> = vars.iter().map(|v| v.vsize.min((1 << 32) - 4)).collect();
    let mut begin = file.header_only().len() as u64;
    let begins: Vec<u64> = vars
        .iter()
        .map(|v| {
            let at = begin;
            begin += v.vsize;
            at
        })
        .collect();
    out.write_all(&file.header(&begins, &vsizes))?;
    Ok(())
}

fn put_f32s(out: &mut impl Write, values: impl IntoIterator<Item = f64>) -> Result<()> {
    for v in values {
        out.write_all(&(v as f32).to_be_bytes())?;
    }
    Ok(())
}

fn put_f64s(out: &mut impl Write, values: impl IntoIterator<Item = f64>) -> Result<()> {
    for v in values {
        out.write_all(&v.to_be_bytes())?;
    }
    Ok(())
}

/// Opens `path` for writing through a buffer, runs `body`, and flushes.
fn with_file(path: &Path, body: impl FnOnce(&mut BufWriter<File>) -> Result<()>) -> Result<()> {
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    body(&mut out).with_context(|| format!("cannot write {}", path.display()))?;
    out.flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `x` rounded to two decimals, as a decimal number would be, then read back.
fn round2(x: f64) -> f64 {
    format!("{x:.2}").parse().unwrap_or(x)
}

/// Number of time steps for `size_mb` MB at `bytes_per_step`, rounded to nearest (ties to
/// even), at least 1.
fn steps_rounded(size_mb: f64, bytes_per_step: f64) -> usize {
    ((size_mb * 1e6 / bytes_per_step).round_ties_even() as usize).max(1)
}

/// The small grid-scale noise of the fields: 11 phases, each a row along longitude.
fn noise_rows(lon: usize) -> Vec<Vec<f64>> {
    (0..11)
        .map(|p| {
            (0..lon)
                .map(|x| ((7 * x + p) % 11) as f64 / 100.0)
                .collect()
        })
        .collect()
}

/// A temperature-like field at step `t`: rows along longitude, latitude by latitude.
fn temp_rows(t: usize, lat: usize, cos_x: &[f64], noise: &[Vec<f64>]) -> Vec<f64> {
    let mut v = Vec::with_capacity(lat * cos_x.len());
    for y in 0..lat {
        let a = 20.0 * (y as f64 / 17.0 + t as f64 / 5.0).sin();
        let n = &noise[(13 * y + t) % 11];
        v.extend(cos_x.iter().zip(n).map(|(c, e)| 280.0 + a * c + e));
    }
    v
}

/// A precipitation-like field at step `t`: many zeros, two decimals.
fn precip_rows(t: usize, lat: usize, lon: usize) -> Vec<f64> {
    let s: Vec<f64> = (0..lon)
        .map(|x| (x as f64 / 31.0 + t as f64 / 7.0).sin())
        .collect();
    let mut v = Vec::with_capacity(lat * lon);
    for y in 0..lat {
        let a = 8.0 * (y as f64 / 13.0).sin() - 2.0;
        v.extend(s.iter().map(|c| {
            let r = round2(a * c);
            if r > 0.0 {
                r
            } else {
                0.0
            }
        }));
    }
    v
}

/// The ncdump and ncgen cases' file: `temp` (float) and `pres` (double), `(time, lat,
/// lon)` on 180 x 360, about `size_mb` MB (time steps rounded down, at least 1).
pub fn write_floats(path: &Path, size_mb: f64) -> Result<()> {
    let (lat, lon) = (180usize, 360usize);
    let per_step = (lat * lon * (4 + 8)) as f64;
    let nt = ((size_mb * 1e6 / per_step) as usize).max(1);
    let dims = [
        ("time", nt as u64),
        ("lat", lat as u64),
        ("lon", lon as u64),
    ];
    let var = |name, nc_type, size: usize| VarHeader {
        name,
        nc_type,
        dims: vec![0, 1, 2],
        attrs: vec![],
        vsize: (nt * lat * lon * size) as u64,
    };
    let vars = [var("temp", NC_FLOAT, 4), var("pres", NC_DOUBLE, 8)];
    with_file(path, |out| {
        write_header(out, 0, &dims, &[], &vars)?;
        for double in [false, true] {
            for t in 0..nt {
                let field = (0..lat).flat_map(|y| {
                    (0..lon).map(move |x| {
                        280.0
                            + 20.0
                                * (y as f64 / 17.0 + t as f64 / 5.0).sin()
                                * (x as f64 / 23.0).cos()
                            + ((x * 7 + y * 13 + t) % 11) as f64 / 100.0
                    })
                });
                if double {
                    put_f64s(out, field)?;
                } else {
                    put_f32s(out, field)?;
                }
            }
        }
        Ok(())
    })
}

/// The nccopy and filter cases' file: coordinates `lat`, `lon`, `time`, then `orog(lat,
/// lon)` and `temp`, `precip`, `wind(time, lat, lon)`, all float, on 360 x 720, about
/// `size_mb` MB. Time is a fixed dimension here.
pub fn write_nccopy_input(path: &Path, size_mb: f64) -> Result<()> {
    let (lat, lon) = (360usize, 720usize);
    let nt = steps_rounded(size_mb, (3 * lat * lon * 4) as f64);
    let dims = [
        ("time", nt as u64),
        ("lat", lat as u64),
        ("lon", lon as u64),
    ];
    let float = |name, dims: Vec<u64>, attrs| {
        let n: usize = dims.iter().map(|&d| [nt, lat, lon][d as usize]).product();
        VarHeader {
            name,
            nc_type: NC_FLOAT,
            dims,
            attrs,
            vsize: 4 * n as u64,
        }
    };
    let vars = [
        float("lat", vec![1], vec![("units", "degrees_north")]),
        float("lon", vec![2], vec![("units", "degrees_east")]),
        float("time", vec![0], vec![("units", "hours since 2000-01-01")]),
        float(
            "orog",
            vec![1, 2],
            vec![("units", "m"), ("long_name", "surface altitude")],
        ),
        float(
            "temp",
            vec![0, 1, 2],
            vec![("units", "K"), ("long_name", "air temperature")],
        ),
        float(
            "precip",
            vec![0, 1, 2],
            vec![("units", "mm/h"), ("long_name", "precipitation rate")],
        ),
        float(
            "wind",
            vec![0, 1, 2],
            vec![("units", "m/s"), ("long_name", "wind speed")],
        ),
    ];
    let global = [("title", "nctools bench data (scripts/bench)")];
    let cos_x: Vec<f64> = (0..lon).map(|x| (x as f64 / 23.0).cos()).collect();
    let noise = noise_rows(lon);
    with_file(path, |out| {
        write_header(out, 0, &dims, &global, &vars)?;
        put_f32s(out, (0..lat).map(|i| -89.75 + 0.5 * i as f64))?;
        put_f32s(out, (0..lon).map(|i| 0.25 + 0.5 * i as f64))?;
        put_f32s(out, (0..nt).map(|i| 6.0 * i as f64))?;
        put_f32s(
            out,
            (0..lat).flat_map(|y| {
                (0..lon).map(move |x| {
                    let v = 3000.0 * (y as f64 / 40.0).sin() * (x as f64 / 57.0).cos();
                    if v > 0.0 {
                        v
                    } else {
                        0.0
                    }
                })
            }),
        )?;
        for t in 0..nt {
            put_f32s(out, temp_rows(t, lat, &cos_x, &noise))?;
        }
        for t in 0..nt {
            put_f32s(out, precip_rows(t, lat, lon))?;
        }
        for t in 0..nt {
            let c: Vec<f64> = (0..lon)
                .map(|x| (x as f64 / 11.0 - t as f64 / 3.0).cos())
                .collect();
            for y in 0..lat {
                let a = 5.0 * (y as f64 / 29.0).sin();
                let n = &noise[(5 * y + 3 * t) % 11];
                put_f32s(out, c.iter().zip(n).map(|(v, e)| 10.0 + a * v + 3.0 * e))?;
            }
        }
        Ok(())
    })
}

/// The file of the shape real files have: `lat`, `lon`, then record variables `time`
/// (double), `tas` and `pr(time, lat, lon)` (float) on 360 x 720, time unlimited, about
/// `size_mb` MB.
pub fn write_unlimited(path: &Path, size_mb: f64) -> Result<()> {
    let (lat, lon) = (360usize, 720usize);
    let nt = steps_rounded(size_mb, (2 * lat * lon * 4) as f64);
    let dims = [("time", 0), ("lat", lat as u64), ("lon", lon as u64)];
    let var = |name, nc_type, dims, units, vsize: usize| VarHeader {
        name,
        nc_type,
        dims,
        attrs: vec![("units", units)],
        vsize: vsize as u64,
    };
    let vars = [
        var("lat", NC_FLOAT, vec![1], "degrees_north", 4 * lat),
        var("lon", NC_FLOAT, vec![2], "degrees_east", 4 * lon),
        var("time", NC_DOUBLE, vec![0], "hours since 2000-01-01", 8),
        var("tas", NC_FLOAT, vec![0, 1, 2], "K", 4 * lat * lon),
        var("pr", NC_FLOAT, vec![0, 1, 2], "mm/h", 4 * lat * lon),
    ];
    let global = [("title", "nctools bench data (scripts/bench zarr)")];
    let cos_x: Vec<f64> = (0..lon).map(|x| (x as f64 / 23.0).cos()).collect();
    let noise = noise_rows(lon);
    with_file(path, |out| {
        write_header(out, nt as u64, &dims, &global, &vars)?;
        put_f32s(out, (0..lat).map(|i| -89.75 + 0.5 * i as f64))?;
        put_f32s(out, (0..lon).map(|i| 0.25 + 0.5 * i as f64))?;
        for t in 0..nt {
            put_f64s(out, [6.0 * t as f64])?;
            put_f32s(out, temp_rows(t, lat, &cos_x, &noise))?;
            put_f32s(out, precip_rows(t, lat, lon))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unlimited_file_is_a_classic_file_of_the_announced_shape() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("u.nc");
        // 3 steps: 3 * 2 * 360 * 720 * 4 bytes.
        write_unlimited(&path, 3.0 * 2.0 * 360.0 * 720.0 * 4.0 / 1e6)?;
        let file = classic::ClassicFile::open(&path, classic::OpenOptions::default())?;
        let h = file.header();
        assert_eq!(h.numrecs, Some(3));
        let dims: Vec<(&str, u64)> = h.dims.iter().map(|d| (d.name.as_str(), d.len)).collect();
        assert_eq!(dims, [("time", 0), ("lat", 360), ("lon", 720)]);
        let vars: Vec<&str> = h.vars.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(vars, ["lat", "lon", "time", "tas", "pr"]);
        let data = 4 * (360 + 720) + 3 * (8 + 2 * 4 * 360 * 720);
        assert_eq!(std::fs::metadata(&path)?.len(), h.len + data);
        Ok(())
    }

    #[test]
    fn decimals_round_as_decimal_numbers_do() {
        assert_eq!(round2(1.234_999), 1.23);
        assert_eq!(round2(-0.004), -0.0);
        assert_eq!(round2(2.675), 2.67); // 2.675 is just below it in binary
    }
}
