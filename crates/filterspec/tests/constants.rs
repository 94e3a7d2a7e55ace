//! The spec's constants table (DECISIONS D1), row by row, and the conformance vector of
//! netCDF-C's test suite. Expected words were observed with the reference ncgen 4.9.0
//! (`_Filter = "307,<constant>"`, read back with `ncdump -hsF`); the root package's
//! `reference_constants` test re-checks them against the installed reference.

use filterspec::{parse_constant, parse_spec_list, FilterSpec, TypeTag, Words};

fn words(text: &str) -> Vec<u32> {
    match parse_spec_list(&format!("1,{text}")) {
        Ok(specs) => specs[0].params.clone(),
        Err(e) => panic!("{text}: {}", e.render()),
    }
}

fn rejects(text: &str) -> bool {
    parse_spec_list(&format!("1,{text}")).is_err()
}

#[test]
fn row_signed_byte() {
    assert_eq!(words("-17b"), [239]);
    assert_eq!(words("-128b"), [128]);
    assert_eq!(words("127B"), [127]);
    assert_eq!(words("255b"), [255]);
    assert!(rejects("256b") && rejects("-129b"));
}

#[test]
fn row_unsigned_byte() {
    assert_eq!(words("23ub"), [23]);
    assert_eq!(words("255UB"), [255]);
    assert_eq!(words("23uB"), [23]);
    assert!(rejects("256ub"));
}

#[test]
fn row_signed_short() {
    assert_eq!(words("-25S"), [65511]);
    assert_eq!(words("-25s"), [65511]);
    assert_eq!(words("-32768s"), [32768]);
    assert_eq!(words("65535s"), [65535]);
    assert!(rejects("65536s") && rejects("-32769s"));
}

#[test]
fn row_unsigned_short() {
    assert_eq!(words("27US"), [27]);
    assert_eq!(words("65535us"), [65535]);
    assert!(rejects("65536us"));
}

#[test]
fn row_implicit_signed_int() {
    assert_eq!(words("-77"), [4294967219]);
    assert_eq!(words("-2147483648"), [2147483648]);
    assert!(rejects("-2147483649"));
}

#[test]
fn row_implicit_unsigned_int_takes_the_smallest_type() {
    assert_eq!(words("77"), [77]);
    assert_eq!(words("4294967295"), [4294967295]);
    // Above u32: two words, low first.
    assert_eq!(words("4294967296"), [0, 1]);
    assert_eq!(words("18446744073709551615"), [4294967295, 4294967295]);
    assert!(rejects("18446744073709551616"));
}

#[test]
fn row_explicit_unsigned_int() {
    assert_eq!(words("93U"), [93]);
    assert_eq!(words("4294967295u"), [4294967295]);
    assert!(rejects("4294967296U") && rejects("-1u"));
}

#[test]
fn row_float() {
    assert_eq!(words("789f"), [1145389056]);
    assert_eq!(words("1.5f"), [1.5f32.to_bits()]);
    assert_eq!(words("1e3F"), [1000f32.to_bits()]);
    assert_eq!(words("-0.1f"), [(-0.1f32).to_bits()]);
    assert!(rejects("1e39f"));
}

#[test]
fn row_double() {
    assert_eq!(words("12345678.12345678d"), [3287505826, 1097305129]);
    assert_eq!(words("1D"), [0, 1072693248]);
    assert!(rejects("1e309d"));
}

#[test]
fn row_signed_long_long() {
    assert_eq!(words("-9223372036854775807L"), [1, 2147483648]);
    assert_eq!(words("-1l"), [4294967295, 4294967295]);
    assert_eq!(words("5L"), [5, 0]);
    assert!(rejects("9223372036854775808L"));
}

#[test]
fn row_unsigned_long_long() {
    assert_eq!(words("18446744073709551615UL"), [4294967295, 4294967295]);
    assert_eq!(words("7ul"), [7, 0]);
    assert!(rejects("18446744073709551616UL") && rejects("-1ul"));
}

#[test]
fn hex_integers_are_ours() {
    assert_eq!(words("0x10"), [16]);
    assert_eq!(words("0x10us"), [16]);
    assert_eq!(words("0xFFFFFFFFFFFFFFFF"), [4294967295, 4294967295]);
    // `b`, `d` and `f` are hex digits, so they cannot tag a hex number.
    assert_eq!(words("0x1b"), [27]);
}

#[test]
fn conformance_vector_of_the_reference_test_suite() {
    let text = "32768, -17b, 23ub, -25S, 27US, 77, 93U, 2147483647, -2147483648, 4294967295U, \
                789f, -9223372036854775807L, 18446744073709551615UL, 12345678.12345678d";
    let expected = FilterSpec::new(
        32768,
        [
            239, 23, 65511, 27, 77, 93, 2147483647, 2147483648, 4294967295, 1145389056, 1,
            2147483648, 4294967295, 4294967295, 3287505826, 1097305129,
        ],
    );
    assert_eq!(
        parse_spec_list(text).map_err(|e| e.render()),
        Ok(vec![expected])
    );
}

#[test]
fn every_tag_is_known_by_its_suffix() {
    for tag in TypeTag::ALL {
        assert_eq!(TypeTag::from_suffix(tag.suffix()), Some(tag));
        assert_eq!(
            TypeTag::from_suffix(&tag.suffix().to_uppercase()),
            Some(tag)
        );
    }
    assert_eq!(TypeTag::from_suffix("lu"), None);
    assert_eq!(TypeTag::from_suffix("x"), None);
}

#[test]
fn constants_format_back_to_text_that_parses_the_same() {
    for text in [
        "-17b", "23ub", "-25s", "27us", "-77", "77", "93u", "789.5f", "1e300d", "-5l",
    ] {
        let constant = parse_constant(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        assert_eq!(
            parse_constant(&constant.to_string()),
            Ok(constant),
            "{text}"
        );
    }
    let two = parse_constant("1d").ok().and_then(|c| c.words());
    assert_eq!(two, Some(Words::Two([0, 1072693248])));
}
