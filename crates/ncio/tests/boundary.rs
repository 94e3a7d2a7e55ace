//! The safe API checks what it hands to libnetcdf: ranks, counts, value types, group ids,
//! chunk sizes and compound values that do not fit are errors, never memory libnetcdf
//! misreads. Each case builds its own file with NcWriter.

use ncio::{NcFile, NcWriter};
use ncmodel::{
    AtomicType, Attribute, CompoundField, Dataset, Dim, Endianness, Format, Group, Layout, Storage,
    TypeId, TypeRef, UserType, UserTypeKind, Value, Values, Var,
};

fn int_var(name: &str, dim_ids: Vec<i32>, layout: Layout) -> Var {
    Var {
        id: 0,
        name: name.into(),
        type_ref: TypeRef::Atomic(AtomicType::Int),
        dim_ids,
        atts: Vec::new(),
        storage: Some(Storage {
            layout,
            filters: Vec::new(),
            endianness: Endianness::Native,
            no_fill: false,
            quantize: None,
            codecs: None,
        }),
    }
}

/// A netCDF-4 dataset of five dimensions of 2 and the given variables and types.
fn dataset(vars: Vec<Var>, types: Vec<UserType>, atts: Vec<Attribute>) -> Dataset {
    let dims = (0..5)
        .map(|id| Dim {
            id,
            name: format!("d{id}"),
            len: 2,
            unlimited: false,
        })
        .collect();
    Dataset {
        format: Format::Netcdf4,
        is_nczarr: false,
        specials: Default::default(),
        types,
        root: Group {
            ncid: 0,
            name: "/".into(),
            dims,
            type_ids: Vec::new(),
            vars,
            atts,
            groups: Vec::new(),
        },
    }
}

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn chunk_sizes_must_be_one_per_dimension() {
    let dir = scratch();
    let path = dir.path().join("c.nc");
    let path = path.to_string_lossy();
    let var = int_var("v", vec![0, 1, 2, 3, 4], Layout::Chunked(vec![1]));
    let mut writer = NcWriter::create(&path, Format::Netcdf4).unwrap_or_else(|e| panic!("{e}"));
    let error = writer
        .define(&dataset(vec![var], Vec::new(), Vec::new()))
        .err();
    let message = error.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("1 chunk sizes for a variable of 5 dimensions"),
        "{message}"
    );
    drop(writer);
    assert_eq!(
        std::fs::read_dir(dir.path()).map(Iterator::count).ok(),
        Some(0)
    );
}

/// A file with `int v(d0, d1)` = 0..4, written and reopened.
fn small_file(dir: &std::path::Path) -> (NcFile, Dataset) {
    let path = dir.join("s.nc").to_string_lossy().into_owned();
    let var = int_var("v", vec![0, 1], Layout::Contiguous);
    let mut writer = NcWriter::create(&path, Format::Netcdf4).unwrap_or_else(|e| panic!("{e}"));
    writer
        .define(&dataset(vec![var], Vec::new(), Vec::new()))
        .unwrap_or_else(|e| panic!("{e}"));
    let write = |values: Values, count: &[usize]| {
        writer
            .write(&[], "v", &vec![0; count.len()], count, &values)
            .map_err(|e| e.to_string())
    };
    // Values of another type, too few values, the wrong rank: refused before C sees them.
    let refused = [
        write(Values::Float(vec![1.0; 4]), &[2, 2]),
        write(Values::Int(vec![1; 3]), &[2, 2]),
        write(Values::Int(vec![1; 2]), &[2]),
        write(Values::Int(vec![1; 4]), &[2, usize::MAX]),
    ];
    for (i, result) in refused.iter().enumerate() {
        assert!(result.is_err(), "case {i} was accepted");
    }
    write(Values::Int(vec![0, 1, 2, 3]), &[2, 2]).unwrap_or_else(|e| panic!("{e}"));
    writer.finish().unwrap_or_else(|e| panic!("{e}"));
    let file = NcFile::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let schema = file.schema().unwrap_or_else(|e| panic!("{e}"));
    (file, schema)
}

#[test]
fn reads_are_checked_against_the_variable() {
    let dir = scratch();
    let (file, schema) = small_file(dir.path());
    let root = &schema.root;
    let v = &root.vars[0];
    let read = |ncid: i32, var: &Var, start: &[usize], count: &[usize]| {
        file.read_slab(&schema, ncid, var, start, count)
    };
    assert_eq!(
        read(root.ncid, v, &[0, 0], &[2, 2]).ok(),
        Some(Values::Int(vec![0, 1, 2, 3]))
    );
    let mut as_double = v.clone();
    as_double.type_ref = TypeRef::Atomic(AtomicType::Double);
    let refused = [
        read(root.ncid, v, &[0], &[2]),
        read(root.ncid, v, &[0, 0, 0], &[1, 1, 1]),
        read(root.ncid, v, &[0, 0], &[usize::MAX, 3]),
        read(root.ncid + (1 << 16), v, &[0, 0], &[2, 2]),
        read(root.ncid, &as_double, &[0, 0], &[2, 2]),
    ];
    for (i, result) in refused.iter().enumerate() {
        assert!(result.is_err(), "case {i} was accepted: {result:?}");
    }
    let mut buffer = ncio::RawBuffer::new();
    assert!(file
        .read_raw(root.ncid, v.id, &[0], &[2], &mut buffer)
        .is_err());
    assert!(file
        .read_raw(root.ncid, v.id, &[0, 0], &[2, 2], &mut buffer)
        .is_ok());
    assert_eq!(buffer.len(), 16);
}

#[test]
fn compound_values_that_do_not_fit_their_fields_are_refused() {
    let pair = UserType {
        id: TypeId(100),
        name: "pair_t".into(),
        group_path: Vec::new(),
        size: 0,
        kind: UserTypeKind::Compound {
            fields: vec![
                CompoundField {
                    name: "a".into(),
                    offset: 0,
                    type_ref: TypeRef::Atomic(AtomicType::Int),
                    dims: vec![2],
                },
                CompoundField {
                    name: "s".into(),
                    offset: 0,
                    type_ref: TypeRef::Atomic(AtomicType::String),
                    dims: vec![2],
                },
            ],
        },
    };
    let attribute = |a: Values, s: Values| Attribute {
        name: "att".into(),
        type_ref: TypeRef::User(TypeId(100)),
        values: Values::User(vec![Value::Compound(vec![a, s])]),
    };
    let strings = |n: usize| Values::String(vec![Some(b"x".to_vec()); n]);
    let cases = [
        (
            attribute(Values::Int(vec![1, 2, 3, 4, 5, 6]), strings(1)),
            false,
        ),
        (
            attribute(Values::Int(vec![1, 2]), Values::Int(vec![1, 2])),
            false,
        ),
        (attribute(Values::Int(vec![1, 2]), strings(2)), true),
    ];
    for (i, (att, fits)) in cases.into_iter().enumerate() {
        let dir = scratch();
        let path = dir.path().join("p.nc").to_string_lossy().into_owned();
        let mut writer = NcWriter::create(&path, Format::Netcdf4).unwrap_or_else(|e| panic!("{e}"));
        let result = writer.define(&dataset(Vec::new(), vec![pair.clone()], vec![att]));
        assert_eq!(result.is_ok(), fits, "case {i}: {result:?}");
    }
}

/// Across the storage boundary a variable is named by its path: two variables named `v`,
/// in the root group and in `/g`, are written and read apart, and a path the file does
/// not have is not found.
#[test]
fn variables_are_named_by_their_paths() {
    use store::{ErrorKind, StoreReader, StoreWriter, VarPath};
    let dir = scratch();
    let path = dir.path().join("p.nc").to_string_lossy().into_owned();
    let mut ds = dataset(
        vec![int_var("v", vec![0], Layout::Contiguous)],
        Vec::new(),
        Vec::new(),
    );
    ds.root.groups.push(Group {
        ncid: 1,
        name: "g".into(),
        vars: vec![int_var("v", vec![0, 1], Layout::Chunked(vec![1, 2]))],
        ..Group::default()
    });
    let (top, nested) = (VarPath::in_root("v"), VarPath::new(["g"], "v"));
    let mut writer = NcWriter::create(&path, Format::Netcdf4).unwrap_or_else(|e| panic!("{e}"));
    writer.define(&ds).unwrap_or_else(|e| panic!("{e}"));
    let out: &dyn StoreWriter = &writer;
    out.write(&top, &[0], &[2], &Values::Int(vec![7, 8]))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.layout(&nested).ok(), Some(Layout::Chunked(vec![1, 2])));
    let bytes: Vec<u8> = [1i32, 2, 3, 4]
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    let mut raw = ncio::RawBuffer::new();
    raw.resize(bytes.len());
    raw.as_bytes_mut().copy_from_slice(&bytes);
    out.write_raw(&nested, &[0, 0], &[2, 2], &raw)
        .unwrap_or_else(|e| panic!("{e}"));
    let missing = VarPath::new(["h"], "v");
    assert_eq!(
        out.layout(&missing).map_err(|e| e.kind),
        Err(ErrorKind::NotFound)
    );
    writer.finish().unwrap_or_else(|e| panic!("{e}"));

    let file = NcFile::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let schema = file.schema().unwrap_or_else(|e| panic!("{e}"));
    let input: &dyn StoreReader = &file;
    assert_eq!(
        input.read_slab(&schema, &top, &[0], &[2]).ok(),
        Some(Values::Int(vec![7, 8]))
    );
    assert_eq!(
        input.read_slab(&schema, &nested, &[1, 0], &[1, 2]).ok(),
        Some(Values::Int(vec![3, 4]))
    );
    let mut back = ncio::RawBuffer::new();
    for _ in 0..2 {
        // The second read finds the ids it kept for the path.
        input
            .read_raw(&nested, &[0, 0], &[2, 2], &mut back)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.as_bytes(), raw.as_bytes());
    }
    assert_eq!(
        input
            .read_raw(&missing, &[0], &[1], &mut back)
            .map_err(|e| e.kind),
        Err(ErrorKind::NotFound)
    );
    assert_eq!(
        input
            .read_slab(&schema, &missing, &[0], &[1])
            .map_err(|e| e.kind),
        Err(ErrorKind::NotFound)
    );
}
