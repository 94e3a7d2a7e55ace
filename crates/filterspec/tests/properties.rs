//! Properties: formatting then parsing gives back the same value, and no parser panics on
//! arbitrary input.

use filterspec::{
    format_spec_list, parse_constant, parse_filter_arg, parse_spec_list, Constant, FilterRequests,
    FilterSpec, Number, Pipeline, TypeTag, VarPath,
};
use proptest::prelude::*;

fn filter_spec() -> impl Strategy<Value = FilterSpec> {
    (1u32..=65535, prop::collection::vec(any::<u32>(), 0..8))
        .prop_map(|(id, params)| FilterSpec::new(id, params))
}

/// A constant within its tag's range, with its expected words computed independently.
fn constant() -> impl Strategy<Value = (Constant, Vec<u32>)> {
    let int = |tag, range: std::ops::RangeInclusive<i128>| {
        range.prop_map(move |v| Constant {
            number: Number::Integer(v),
            tag,
        })
    };
    prop_oneof![
        int(TypeTag::Byte, -128..=255).prop_map(|c| words_of(c, |v| vec![v as u32 & 0xff])),
        int(TypeTag::UByte, -128..=255).prop_map(|c| words_of(c, |v| vec![v as u32 & 0xff])),
        int(TypeTag::Short, -32768..=65535).prop_map(|c| words_of(c, |v| vec![v as u32 & 0xffff])),
        int(TypeTag::UShort, 0..=65535).prop_map(|c| words_of(c, |v| vec![v as u32])),
        int(TypeTag::Untagged, -(1 << 31)..=-1)
            .prop_map(|c| words_of(c, |v| vec![v as i32 as u32])),
        int(TypeTag::Untagged, 0..=u64::MAX as i128).prop_map(|c| words_of(c, |v| {
            if v <= u32::MAX as i128 {
                vec![v as u32]
            } else {
                vec![v as u32, (v >> 32) as u32]
            }
        })),
        int(TypeTag::UInt, 0..=u32::MAX as i128).prop_map(|c| words_of(c, |v| vec![v as u32])),
        int(TypeTag::Long, i64::MIN as i128..=i64::MAX as i128)
            .prop_map(|c| words_of(c, |v| vec![v as u32, ((v as i64 as u64) >> 32) as u32])),
        int(TypeTag::ULong, 0..=u64::MAX as i128)
            .prop_map(|c| words_of(c, |v| vec![v as u32, (v >> 32) as u32])),
        (-3.0e38f64..3.0e38).prop_map(|v| {
            let c = Constant {
                number: Number::Real(v),
                tag: TypeTag::Float,
            };
            (c, vec![(v as f32).to_bits()])
        }),
        any::<f64>()
            .prop_filter("finite", |v| v.is_finite())
            .prop_map(|v| {
                let c = Constant {
                    number: Number::Real(v),
                    tag: TypeTag::Double,
                };
                let bits = v.to_bits();
                (c, vec![bits as u32, (bits >> 32) as u32])
            }),
    ]
}

fn words_of(c: Constant, expected: impl Fn(i128) -> Vec<u32>) -> (Constant, Vec<u32>) {
    let Number::Integer(v) = c.number else {
        unreachable!("integer strategy")
    };
    (c, expected(v))
}

fn odd_name() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_ ,&|\\\\*./-]{0,8}".prop_filter("no trailing blank", |s| !s.ends_with(' '))
}

proptest! {
    #[test]
    fn spec_lists_format_then_parse_to_the_same_value(specs in prop::collection::vec(filter_spec(), 1..5)) {
        let text = format_spec_list(&specs);
        prop_assert_eq!(parse_spec_list(&text).map_err(|e| e.render()), Ok(specs));
    }

    #[test]
    fn constants_format_then_parse_to_the_same_value_and_words((c, expected) in constant()) {
        let text = c.to_string();
        prop_assert_eq!(parse_constant(&text), Ok(c));
        let spec = parse_spec_list(&format!("307,{text}")).map_err(|e| e.render());
        prop_assert_eq!(spec.map(|s| s[0].params.clone()), Ok(expected));
    }

    #[test]
    fn escaped_paths_parse_back(groups in prop::collection::vec(odd_name(), 0..3), name in odd_name()) {
        let path = VarPath::new(groups, name);
        let arg = format!("{},none", filterspec::escape_path(&path));
        let requests = FilterRequests::from_args([arg.as_str()]).map_err(|e| e.render());
        let paths: Vec<VarPath> = requests.iter().flat_map(|r| r.explicit_paths().cloned()).collect();
        prop_assert_eq!(paths, vec![path]);
    }

    #[test]
    fn stored_order_is_stable_under_reparsing(specs in prop::collection::vec(filter_spec(), 0..6)) {
        let pipeline = Pipeline::from_definitions(specs);
        let again = Pipeline::from_definitions(pipeline.filters().to_vec());
        prop_assert_eq!(&again, &pipeline);
        let ids: Vec<u32> = pipeline.ids().collect();
        if let Some(i) = ids.iter().position(|&id| id == 3) { prop_assert_eq!(i, 0); }
        if let Some(i) = ids.iter().position(|&id| id == 2) { prop_assert!(i <= 1); }
    }

    #[test]
    fn parsers_never_panic(text in "\\PC{0,40}") {
        let _ = parse_spec_list(&text).map_err(|e| e.render());
        let _ = parse_filter_arg(&text).map_err(|e| e.render());
    }

    #[test]
    fn parsers_never_panic_on_spec_like_text(text in "[0-9a-zA-Z ,|&*\\\\/.+-]{0,40}") {
        let _ = parse_spec_list(&text).map_err(|e| e.render());
        let _ = parse_filter_arg(&text).map_err(|e| e.render());
    }
}
