//! Our quantization gives the bits libnetcdf gives: values of every magnitude (tiny,
//! huge, negative, zero, subnormal, the fill value) written through libnetcdf with each
//! algorithm and several digit (or bit) counts, read back, and compared bit for bit with
//! what [`quantize_f32`] and [`quantize_f64`] make of them.
//!
//! Left out: `f32` with 7 digits for BitGroom and Granular BitRound, where libnetcdf 4.9.0
//! damages values (see the crate's documentation; a unit test covers our behaviour).

use ncio::{NcFile, NcWriter};
use ncmodel::{
    AtomicType, Dataset, Dim, Endianness, Format, GlobalSpecials, Group, Layout, Storage, TypeRef,
    Values, Var,
};
use quantize::{quantize_f32, quantize_f64, Quantize, QuantizeMode};

/// netCDF's default fill for float and double.
const FILL: f64 = 9.969_209_968_386_869e36;

/// Deterministic values over 60 decades, both signs, with special ones first.
fn values(n: usize) -> Vec<f64> {
    let mut out = vec![
        0.0,
        1.0,
        -1.0,
        0.5,
        std::f64::consts::PI,
        100.123_456,
        1e-38,
        1e-300,
        FILL,
        2.0,
        1.5,
        0.1,
        0.2,
        0.3,
        7.0,
        1e10,
        123_456_789.0,
        -0.0,
        65504.0,
        3e38,
        1e-310,
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    while out.len() < n {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
        let decade = (state % 61) as i32 - 30;
        let sign = if state & (1 << 7) == 0 { 1.0 } else { -1.0 };
        out.push(sign * (1.0 + 9.0 * unit) * 10f64.powi(decade));
    }
    out
}

fn dataset(n: usize, q: Quantize, t: AtomicType) -> Dataset {
    let var = |id: i32, name: &str| Var {
        id,
        name: name.into(),
        type_ref: TypeRef::Atomic(t),
        dim_ids: vec![0],
        atts: vec![],
        storage: Some(Storage {
            layout: Layout::Chunked(vec![n]),
            filters: vec![],
            endianness: Endianness::Native,
            no_fill: false,
            quantize: Some(q),
            codecs: None,
        }),
    };
    Dataset {
        format: Format::Netcdf4,
        is_nczarr: false,
        specials: GlobalSpecials::default(),
        types: vec![],
        root: Group {
            ncid: 0,
            name: "/".into(),
            dims: vec![Dim {
                id: 0,
                name: "x".into(),
                len: n,
                unlimited: false,
            }],
            vars: vec![var(0, "v")],
            ..Group::default()
        },
    }
}

/// `values` (as `t`) after libnetcdf quantized them with `q`.
fn through_libnetcdf(dir: &std::path::Path, values: Values, q: Quantize) -> Values {
    let n = values.len();
    let t = match values {
        Values::Float(_) => AtomicType::Float,
        _ => AtomicType::Double,
    };
    let path = dir.join(format!("{:?}-{}-{t:?}.nc", q.mode, q.nsd));
    let path = path.to_string_lossy().into_owned();
    let ds = dataset(n, q, t);
    let mut w = NcWriter::create(&path, Format::Netcdf4).unwrap_or_else(|e| panic!("{e}"));
    w.define(&ds).unwrap_or_else(|e| panic!("{e}"));
    w.write(&[], "v", &[0], &[n], &values)
        .unwrap_or_else(|e| panic!("{e}"));
    w.finish().unwrap_or_else(|e| panic!("{e}"));
    let r = NcFile::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let back = r.schema().unwrap_or_else(|e| panic!("{e}"));
    r.read_slab(&back, back.root.ncid, &back.root.vars[0], &[0], &[n])
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_algorithm_gives_libnetcdfs_bits() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let input = values(3000);
    let cases: Vec<(QuantizeMode, Vec<i32>, Vec<i32>)> = vec![
        (
            QuantizeMode::BitRound,
            vec![1, 5, 10, 22, 23],
            vec![1, 10, 23, 40, 52],
        ),
        (
            QuantizeMode::BitGroom,
            vec![1, 2, 3, 5, 6],
            vec![1, 3, 7, 11, 15],
        ),
        (
            QuantizeMode::GranularBitRound,
            vec![1, 2, 3, 5, 6],
            vec![1, 3, 7, 11, 15],
        ),
    ];
    let mut checked = 0;
    for (mode, float_digits, double_digits) in cases {
        for nsd in float_digits {
            let q = Quantize { mode, nsd };
            let mut ours: Vec<f32> = input.iter().map(|v| *v as f32).collect();
            let Values::Float(theirs) =
                through_libnetcdf(dir.path(), Values::Float(ours.clone()), q)
            else {
                panic!("not floats");
            };
            quantize_f32(&mut ours, q, Some(FILL as f32));
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "{mode:?} {nsd} float #{i} {}: ours {a:e}, libnetcdf {b:e}",
                    input[i] as f32
                );
            }
            checked += ours.len();
        }
        for nsd in double_digits {
            let q = Quantize { mode, nsd };
            let Values::Double(theirs) =
                through_libnetcdf(dir.path(), Values::Double(input.clone()), q)
            else {
                panic!("not doubles");
            };
            let mut ours = input.clone();
            quantize_f64(&mut ours, q, Some(FILL));
            for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "{mode:?} {nsd} double #{i} {}: ours {a:e}, libnetcdf {b:e}",
                    input[i]
                );
            }
            checked += ours.len();
        }
    }
    assert_eq!(checked, 3000 * 30);
}
