use super::*;

/// The message of a refusal.
fn error_of<T>(result: Result<T, ClassicError>) -> String {
    match result {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}
use crate::testfile::{TestFile, TestVar};

fn var(name: &'static str, dims: Vec<u64>, nc_type: u32) -> TestVar {
    TestVar {
        name,
        dims,
        nc_type,
        atts: Vec::new(),
    }
}

/// A file with a fixed `x` (int, 3), record variables `t` (double) and `v` (short, 3,
/// `_FillValue` 32767), two records; and the offset of its records.
fn three_vars(dir: &Path) -> (std::path::PathBuf, u64) {
    let mut file = TestFile {
        version: 2,
        numrecs: 2,
        dims: vec![("time", 0), ("x", 3)],
        global_atts: Vec::new(),
        vars: vec![
            var("x", vec![1], 4),
            var("t", vec![0], 6),
            var("v", vec![0, 1], 3),
        ],
    };
    file.vars[2]
        .atts
        .push(("_FillValue", 3, vec![0x7f, 0xff], 1));
    let h = file.header(&[0, 0, 0], &[0, 0, 0]).len() as u64;
    let begin_rec = h + 12;
    let mut bytes = file.header(&[h, begin_rec, begin_rec + 8], &[12, 8, 8]);
    for x in [1i32, 2, 3] {
        bytes.extend_from_slice(&x.to_be_bytes());
    }
    for r in 0..2i16 {
        bytes.extend_from_slice(&(f64::from(r) + 0.5).to_be_bytes());
        for k in 0..3i16 {
            bytes.extend_from_slice(&(10 * r + k).to_be_bytes());
        }
        bytes.extend_from_slice(&[0, 0]);
    }
    let path = dir.join("three.nc");
    std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    (path, begin_rec)
}

fn read(file: &ClassicFile, var: usize, start: &[usize], count: &[usize]) -> Values {
    let t = file.header().vars[var].atomic_type;
    let mut out = vec![0; count.iter().product::<usize>() * t.size()];
    file.read_native(var, start, count, &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    Values::from_native_bytes(t, &out).unwrap_or_else(|| panic!("no values"))
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn fixed_and_record_variables_read_back_in_any_hyperslab() {
    let dir = scratch();
    let (path, _) = three_vars(dir.path());
    for in_memory in [false, true] {
        let options = OpenOptions {
            in_memory,
            ..OpenOptions::default()
        };
        let file = ClassicFile::open(&path, options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&file, 0, &[0], &[3]), Values::Int(vec![1, 2, 3]));
        assert_eq!(read(&file, 0, &[1], &[2]), Values::Int(vec![2, 3]));
        assert_eq!(read(&file, 1, &[0], &[2]), Values::Double(vec![0.5, 1.5]));
        assert_eq!(
            read(&file, 2, &[0, 0], &[2, 3]),
            Values::Short(vec![0, 1, 2, 10, 11, 12])
        );
        assert_eq!(
            read(&file, 2, &[1, 1], &[1, 2]),
            Values::Short(vec![11, 12])
        );
        assert_eq!(read(&file, 2, &[0, 2], &[2, 1]), Values::Short(vec![2, 12]));
        assert_eq!(read(&file, 2, &[1, 0], &[0, 3]), Values::Short(vec![]));
        let dataset = file.dataset();
        assert_eq!(dataset.format, ncmodel::Format::Offset64);
        assert_eq!(dataset.root.dims[0].len, 2);
        assert!(dataset.root.dims[0].unlimited);
    }
}

#[test]
fn hyperslabs_outside_a_variable_are_refused() {
    let dir = scratch();
    let (path, _) = three_vars(dir.path());
    let file = ClassicFile::open(&path, OpenOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let mut out = vec![0; 8];
    for (start, count) in [
        (&[2usize, 0][..], &[1usize, 3][..]),
        (&[0, 2], &[1, 2]),
        (&[0], &[1]),
    ] {
        assert!(matches!(
            file.read_native(2, start, count, &mut out),
            Err(ClassicError::BadRequest(_))
        ));
    }
    assert!(file.read_native(9, &[], &[], &mut out).is_err());
}

#[test]
fn a_file_cut_short_is_refused_with_both_lengths_unless_filled() {
    let dir = scratch();
    let (path, begin_rec) = three_vars(dir.path());
    let bytes = std::fs::read(&path).unwrap_or_default();
    // The last record's v[1, 2] is gone but its first byte (and the padding after it).
    let cut = (begin_rec + 16 + 8 + 5) as usize;
    std::fs::write(&path, &bytes[..cut]).unwrap_or_else(|e| panic!("{e}"));
    match ClassicFile::open(&path, OpenOptions::default()) {
        Err(ClassicError::Truncated { expected, actual }) => {
            assert_eq!((expected, actual), (begin_rec + 16 + 8 + 6, cut as u64));
        }
        other => panic!("{other:?}"),
    }
    let options = OpenOptions {
        fill_missing: true,
        ..OpenOptions::default()
    };
    let file = ClassicFile::open(&path, options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        file.missing(),
        Some(Missing {
            expected: begin_rec + 30,
            actual: cut as u64
        })
    );
    assert_eq!(
        read(&file, 2, &[0, 0], &[2, 3]),
        Values::Short(vec![0, 1, 2, 10, 11, 32767])
    );
}

#[test]
fn a_lone_record_variable_is_not_padded_and_a_streamed_count_is_worked_out() {
    let dir = scratch();
    for numrecs in [3, u64::from(u32::MAX)] {
        let file = TestFile {
            version: 1,
            numrecs,
            dims: vec![("time", 0), ("x", 3)],
            global_atts: Vec::new(),
            vars: vec![var("b", vec![0, 1], 1)],
        };
        let h = file.header(&[0], &[0]).len() as u64;
        let mut bytes = file.header(&[h], &[4]);
        bytes.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        let path = dir.path().join("lone.nc");
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let file =
            ClassicFile::open(&path, OpenOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(file.dataset().root.dims[0].len, 3);
        assert_eq!(
            read(&file, 0, &[1, 0], &[2, 3]),
            Values::Byte(vec![4, 5, 6, 7, 8, 9])
        );
    }
}

#[test]
fn data_placed_inside_the_header_is_refused() {
    let dir = scratch();
    let file = TestFile {
        version: 1,
        numrecs: 0,
        dims: vec![("x", 2)],
        global_atts: Vec::new(),
        vars: vec![var("b", vec![0], 1)],
    };
    let mut bytes = file.header(&[4], &[4]);
    bytes.extend_from_slice(&[0; 4]);
    let path = dir.path().join("inside.nc");
    std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let e = error_of(ClassicFile::open(&path, OpenOptions::default()));
    assert!(
        e.to_string()
            .contains("would start at byte 4, inside the header"),
        "{e}"
    );
}
