use super::*;

/// The message of a refusal.
fn error_of<T>(result: Result<T, ClassicError>) -> String {
    match result {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}
use crate::testfile::{TestFile, TestVar};

fn sample(version: u8) -> TestFile {
    TestFile {
        version,
        numrecs: 2,
        dims: vec![("time", 0), ("x", 3)],
        global_atts: vec![("title", 2, b"hello".to_vec(), 5)],
        vars: vec![
            TestVar {
                name: "t",
                dims: vec![0],
                nc_type: 6,
                atts: vec![("units", 2, b"s".to_vec(), 1)],
            },
            TestVar {
                name: "v",
                dims: vec![0, 1],
                nc_type: 3,
                atts: vec![("_FillValue", 3, vec![0x7f, 0xff], 1)],
            },
        ],
    }
}

#[test]
fn a_header_is_read_in_every_version() {
    for version in [1, 2, 5] {
        let bytes = sample(version).header_only();
        let header = Header::parse(&bytes).unwrap_or_else(|e| panic!("CDF-{version}: {e}"));
        assert_eq!(header.numrecs, Some(2));
        assert_eq!(
            header.dims[1],
            HeaderDim {
                name: "x".into(),
                len: 3
            }
        );
        assert_eq!(header.atts[0].values, Values::Char(b"hello".to_vec()));
        assert_eq!(header.vars[1].dim_ids, vec![0, 1]);
        assert_eq!(header.vars[1].atomic_type, AtomicType::Short);
        assert_eq!(header.vars[1].atts[0].values, Values::Short(vec![0x7fff]));
        assert_eq!(header.len, bytes.len() as u64);
        assert_eq!(header.vars[0].begin, bytes.len() as u64);
    }
}

#[test]
fn every_cut_of_a_header_is_an_error_that_says_where() {
    for version in [1, 2, 5] {
        let bytes = sample(version).header_only();
        for cut in 0..bytes.len() {
            match Header::parse(&bytes[..cut]) {
                Ok(_) => panic!("CDF-{version} cut at {cut}: accepted"),
                Err(ClassicError::Header { offset, what }) => {
                    assert!(offset <= cut as u64, "{offset} > {cut}: {what}");
                    assert!(
                        what.contains("ends inside the header") || what.contains("cannot fit"),
                        "{what}"
                    );
                }
                Err(ClassicError::NotClassic) => assert!(cut < 4),
                Err(e) => panic!("cut at {cut}: {e}"),
            }
        }
    }
}

#[test]
fn counts_larger_than_the_file_are_refused_before_anything_is_allocated() {
    let mut bytes = sample(1).header_only();
    // The dimension count (after magic and numrecs, and the tag).
    bytes[12..16].copy_from_slice(&0x7fff_ffffu32.to_be_bytes());
    let e = error_of(Header::parse(&bytes));
    assert_eq!(
        e,
        format!(
            "corrupt header at byte 16: 2147483647 dimensions cannot fit in the {} bytes \
             left in the file",
            bytes.len() - 16
        )
    );
    let mut bytes = sample(5).header_only();
    bytes[16..24].copy_from_slice(&u64::MAX.to_be_bytes());
    let e = error_of(Header::parse(&bytes));
    assert!(
        e.contains("at byte 16: the number of dimensions is negative"),
        "{e}"
    );
}

#[test]
fn headers_that_do_not_add_up_are_refused() {
    let refuse = |file: &TestFile, says: &str| {
        let e = error_of(Header::parse(&file.header_only()));
        assert!(e.contains(says), "{e}");
    };
    let mut f = sample(1);
    f.dims.push(("again", 0));
    refuse(
        &f,
        "a second unlimited dimension, again (time is one already)",
    );
    let mut f = sample(1);
    f.vars[1].dims = vec![1, 0];
    refuse(&f, "only the first may be unlimited");
    let mut f = sample(1);
    f.vars[1].dims = vec![0, 7];
    refuse(
        &f,
        "variable v uses dimension id 7, but there are 2 dimensions",
    );
    let mut f = sample(1);
    f.vars[1].nc_type = 10;
    refuse(&f, "variable v has type id 10, not a type of this format");
    let mut f = sample(5);
    f.vars[1].nc_type = 12;
    refuse(&f, "type id 12");
    let mut f = sample(1);
    f.dims[1].0 = "time";
    refuse(&f, "two dimensions named time");
    let mut bytes = sample(1).header_only();
    bytes[8..12].copy_from_slice(&11u32.to_be_bytes());
    let e = error_of(Header::parse(&bytes));
    assert_eq!(
        e,
        "corrupt header at byte 8: expected the dimensions list (tag 10), found tag 11"
    );
    let e = error_of(Header::parse(b"CDF\x03\0\0\0\0"));
    assert!(e.contains("unknown version byte 3"), "{e}");
    assert!(matches!(
        Header::parse(b"\x89HDF\r\n"),
        Err(ClassicError::NotClassic)
    ));
}

#[test]
fn the_64_bit_data_types_need_cdf5() {
    let mut f = sample(5);
    f.vars[1].nc_type = 10;
    let header = Header::parse(&f.header_only()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(header.vars[1].atomic_type, AtomicType::Int64);
}
