//! The schema `parse_header` builds from CDL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cdl::parse::{convert_constants, parse_header, CdlHeader, Constant};
use ncmodel::{AtomicType, TypeId, TypeRef, UserTypeKind, Value, Values};

fn parse(text: &str) -> CdlHeader {
    match parse_header(text.as_bytes(), "t.cdl") {
        Ok(h) => h,
        Err(e) => panic!("{}", e.render()),
    }
}

fn att<'a>(atts: &'a [ncmodel::Attribute], name: &str) -> &'a ncmodel::Attribute {
    atts.iter().find(|a| a.name == name).expect(name)
}

#[test]
fn dimensions_variables_and_ids() {
    let h = parse(
        "netcdf \"my file\" {\ndimensions:\n d = 5, e = 6 ;\n t = UNLIMITED ; u = unlimited ;\n\
         variables:\n float v(d, e), w ; int a(t) ;\n}\n",
    );
    assert_eq!(h.name, "\"myfile\"");
    let r = &h.dataset.root;
    assert_eq!(r.name, "/");
    let dims: Vec<_> = r
        .dims
        .iter()
        .map(|d| (d.id, d.name.as_str(), d.len, d.unlimited))
        .collect();
    assert_eq!(
        dims,
        [
            (0, "d", 5, false),
            (1, "e", 6, false),
            (2, "t", 0, true),
            (3, "u", 0, true)
        ]
    );
    let vars: Vec<_> = r
        .vars
        .iter()
        .map(|v| (v.id, v.name.as_str(), v.dim_ids.clone()))
        .collect();
    assert_eq!(
        vars,
        [(0, "v", vec![0, 1]), (1, "w", vec![]), (2, "a", vec![2])]
    );
    assert_eq!(r.vars[0].type_ref, TypeRef::Atomic(AtomicType::Float));
    assert!(r.vars.iter().all(|v| v.storage.is_none()));
}

#[test]
fn untyped_attributes_take_ncgen_types() {
    let h = parse(
        r#"netcdf a { variables: short v ;
        v:_FillValue = 7 ; v:units = "m" ; v:a = 1, 2.5 ; v:b = 1b, 2s ; v:c = 1, 3000000000 ;
        v:d = 1.5f, 2 ; v:e = 10000000000 ; v:f = 1l ; v:g = 'a' ; v:h = "ab", "cd" ;
        v:i = -2147483649 ; v:j = 3000000000, 1 ; v:k = 017 ; v:l = 255B ; v:m = NaNf ;
        v:_Filter = "1,2" ; v:_Filter = "3" ; v:n = ;
        :g = "x\ty\"\\\101\x41" ; }"#,
    );
    let v = &h.dataset.root.vars[0];
    let get = |n: &str| att(&v.atts, n).values.clone();
    assert_eq!(
        att(&v.atts, "_FillValue").type_ref,
        TypeRef::Atomic(AtomicType::Short)
    );
    assert_eq!(get("_FillValue"), Values::Short(vec![7]));
    assert_eq!(get("units"), Values::Char(b"m".to_vec()));
    assert_eq!(get("a"), Values::Double(vec![1.0, 2.5]));
    assert_eq!(get("b"), Values::Short(vec![1, 2]));
    assert_eq!(get("c"), Values::UInt(vec![1, 3_000_000_000]));
    assert_eq!(get("d"), Values::Float(vec![1.5, 2.0]));
    assert_eq!(get("e"), Values::UInt64(vec![10_000_000_000]));
    // ncgen 4.9: a single `l` is int (`5l` writes an int attribute), `ll` is int64.
    assert_eq!(get("f"), Values::Int(vec![1]));
    assert_eq!(get("g"), Values::Byte(vec![97]));
    assert_eq!(get("h"), Values::Char(b"abcd".to_vec()));
    assert_eq!(get("i"), Values::Int64(vec![-2_147_483_649]));
    assert_eq!(get("j"), Values::Int(vec![-1_294_967_296, 1]));
    assert_eq!(get("k"), Values::Int(vec![15]));
    assert_eq!(get("l"), Values::Byte(vec![-1]));
    assert_eq!(get("n"), Values::Char(vec![]));
    let filters: Vec<_> = v.atts.iter().filter(|a| a.name == "_Filter").collect();
    assert_eq!(
        filters.len(),
        2,
        "repeated attributes are all kept, in order"
    );
    let Values::Float(m) = get("m") else { panic!() };
    assert!(m[0].is_nan());
    assert_eq!(
        att(&h.dataset.root.atts, "g").values,
        Values::Char(b"x\ty\"\\AA".to_vec())
    );
}

#[test]
fn typed_attributes_convert_like_c_casts() {
    let h = parse(
        r#"netcdf a { variables: int v ;
        string v:s = "a", "b" ; int64 v:x = 5 ; ubyte v:u = 3, -1 ; byte v:b = 300, -129, 1.7 ;
        int v:i = 1.7, -2.7, 3e10 ; char v:c = "abc", "de" ; string :gs = "t" ; double :gd = 1 ; }"#,
    );
    let v = &h.dataset.root.vars[0];
    let get = |n: &str| att(&v.atts, n).values.clone();
    assert_eq!(
        get("s"),
        Values::String(vec![Some(b"a".to_vec()), Some(b"b".to_vec())])
    );
    assert_eq!(get("x"), Values::Int64(vec![5]));
    assert_eq!(get("u"), Values::UByte(vec![3, 255]));
    assert_eq!(get("b"), Values::Byte(vec![44, 127, 1]));
    assert_eq!(get("i"), Values::Int(vec![1, -2, i32::MIN]));
    assert_eq!(get("c"), Values::Char(b"abcde".to_vec()));
    let g = &h.dataset.root.atts;
    assert_eq!(att(g, "gs").type_ref, TypeRef::Atomic(AtomicType::String));
    assert_eq!(att(g, "gd").values, Values::Double(vec![1.0]));
}

#[test]
fn user_types_and_their_attributes() {
    let h = parse(
        r#"netcdf a {
        types:
          ubyte enum e_t { A = 0, B = 1 } ;
          opaque(3) op_t ;
          int(*) vl_t ;
          compound c_t { int f(2, 3) ; float g ; char s(4) ; } ;
          compound outer_t { c_t inner ; e_t e ; } ;
        variables:
          e_t v ; op_t w ; vl_t x ; c_t y ; outer_t z ;
          v:_FillValue = B ; e_t v:list = A, B ; op_t w:o = 0xabcd ;
          vl_t x:l = {1, 2}, {3} ; c_t y:c = {{1, 2, 3, 4, 5, 6}, 2.5, "ab"} ;
          outer_t z:z = {{{1,2,3,4,5,6}, 1, "x"}, B} ;
        }"#,
    );
    let t = &h.dataset.types;
    assert_eq!(
        t.iter().map(|t| t.id).collect::<Vec<_>>(),
        (32..37).map(TypeId).collect::<Vec<_>>()
    );
    assert_eq!(h.dataset.root.type_ids.len(), 5);
    match &t[3].kind {
        UserTypeKind::Compound { fields } => {
            assert_eq!(fields[0].dims, [2, 3]);
            assert_eq!(fields[2].dims, [4]);
        }
        k => panic!("{k:?}"),
    }
    let vars = &h.dataset.root.vars;
    assert_eq!(
        att(&vars[0].atts, "_FillValue").values,
        Values::User(vec![Value::Enum(1)])
    );
    assert_eq!(
        att(&vars[0].atts, "list").values,
        Values::User(vec![Value::Enum(0), Value::Enum(1)])
    );
    assert_eq!(
        att(&vars[1].atts, "o").values,
        Values::User(vec![Value::Opaque(vec![0xab, 0xcd, 0])])
    );
    assert_eq!(
        att(&vars[2].atts, "l").values,
        Values::User(vec![
            Value::Vlen(Values::Int(vec![1, 2])),
            Value::Vlen(Values::Int(vec![3]))
        ])
    );
    assert_eq!(
        att(&vars[3].atts, "c").values,
        Values::User(vec![Value::Compound(vec![
            Values::Int(vec![1, 2, 3, 4, 5, 6]),
            Values::Float(vec![2.5]),
            Values::Char(b"ab\0\0".to_vec()),
        ])])
    );
    assert!(matches!(&att(&vars[4].atts, "z").values, Values::User(v) if v.len() == 1));
}

#[test]
fn groups_scoping_paths_and_data_entries() {
    let text = "netcdf g {\ndimensions: d = 2 ;\nvariables: int v(d) ;\ndata:\n v = 1, 2 ;\n\
                group: g1 {\n types: opaque(2) o_t ;\n dimensions: e = 3 ;\n variables: int w(d, e) ; o_t o ;\n\
                data: w = {1,2,3}, {4,5,6} ; /g1/o = 0x0102 ;\n group: g2 {\n variables: int x(/g1/e) ; /g1/o_t y ;\n }\n}\n\
                :after = 1 ;\n}\n";
    let h = parse(text);
    let g1 = &h.dataset.root.groups[0];
    assert_eq!(g1.name, "g1");
    assert_eq!(g1.dims[0].id, 1);
    assert_eq!(g1.vars[0].dim_ids, [0, 1]);
    assert_eq!(g1.groups[0].vars[0].dim_ids, [1]);
    assert_eq!(h.dataset.types[0].group_path, ["g1"]);
    assert_eq!(g1.groups[0].vars[1].type_ref, TypeRef::User(TypeId(32)));
    assert_eq!(
        att(&h.dataset.root.atts, "after").values,
        Values::Int(vec![1])
    );
    let entries: Vec<_> = h
        .data
        .iter()
        .map(|e| (e.group_path.clone(), e.var_name.as_str()))
        .collect();
    assert_eq!(
        entries,
        [
            (vec![], "v"),
            (vec!["g1".to_string()], "w"),
            (vec!["g1".to_string()], "o")
        ]
    );
    let e = &h.data[0];
    assert_eq!(
        &text.as_bytes()[e.offset as usize..e.offset as usize + 6],
        b" 1, 2 "
    );
    assert_eq!((e.line, e.col), (5, 5));
}

#[test]
fn names_with_escapes_keywords_and_comments() {
    let h = parse(
        "netcdf a { // comment\n variables: /* block\n comment */ int v\\ x, a.b@c+d-e, \\1x, data ;\n\
         v\\ x:long\\ name = \"\" ; data :x = 1 ; }",
    );
    let names: Vec<_> = h
        .dataset
        .root
        .vars
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(names, ["v x", "a.b@c+d-e", "1x", "data"]);
    assert_eq!(h.dataset.root.vars[0].atts[0].name, "long name");
    assert_eq!(h.dataset.root.vars[3].atts[0].name, "x");
}

#[test]
fn conversion_is_public() {
    let c = [
        Constant::Int {
            value: 300,
            ty: AtomicType::Int,
        },
        Constant::Fill,
    ];
    assert_eq!(
        convert_constants(&c, AtomicType::Byte).unwrap(),
        Values::Byte(vec![44, -127])
    );
    let err = convert_constants(
        &[Constant::Int {
            value: 65,
            ty: AtomicType::Int,
        }],
        AtomicType::Char,
    )
    .unwrap_err();
    assert_eq!(err.index, 0);
}

#[test]
fn unsigned_suffix_after_the_size_letter() {
    // netCDF-C 4.10.1's ncgen reads `u` after the size letter as before it (ncgen.l's
    // NUMBER pattern): `10bu` is `10ub`, `300su` is `300us`, `7lu` is `7ul`, `5llu` is
    // `5ull`, in either case.
    let h = parse(
        "netcdf a { variables: int v ; v:b = 10bu ; v:s = 300SU ; v:l = 7lu ; v:ll = 5llu ; \
         v:ub = 10ub ; v:ull = 5ULL ; }",
    );
    let v = &h.dataset.root.vars[0];
    let get = |n: &str| att(&v.atts, n).values.clone();
    assert_eq!(get("b"), Values::UByte(vec![10]));
    assert_eq!(get("s"), Values::UShort(vec![300]));
    assert_eq!(get("l"), Values::UInt(vec![7]));
    assert_eq!(get("ll"), Values::UInt64(vec![5]));
    assert_eq!(get("ub"), get("b"));
    assert_eq!(get("ull"), get("ll"));
    for refused in ["-10bu", "256bu", "5lul"] {
        let text = format!("netcdf a {{ variables: int v ; v:x = {refused} ; }}");
        assert!(
            parse_header(text.as_bytes(), "x.cdl").is_err(),
            "{refused} is not a constant"
        );
    }
}
