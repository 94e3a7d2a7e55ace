//! Number text against output observed with ncdump 4.9.0 (netCDF-C 4.9.0, glibc 2.36),
//! on files written by ncgen 4.9.0: default precision, `-p 3,5`, `-p 10,17`, `-x`, and
//! `C_format` attributes.

use cdl::number::{
    attribute_byte, attribute_double, attribute_float, attribute_int, attribute_int64,
    attribute_short, attribute_ubyte, attribute_uint, attribute_uint64, attribute_ushort,
    data_double, data_double_c_format, data_float, data_float_c_format, ncml_double, ncml_float,
    ncml_int64, ncml_uint64, parse_precision_option, trim_trailing_zeros, CArg, CFormat, Precision,
    PrecisionError, PrecisionOption,
};

/// The float values of the test file f1.cdl, as ncgen stored them.
const FLOATS: [f32; 11] = [
    1e20,
    1e-5,
    0.1,
    3.402_823_5e38,
    1.175_494_4e-38,
    1e-45,
    123_456_789.0,
    -0.0,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
];

/// More float values of f1.cdl.
const MORE_FLOATS: [f32; 12] = [
    100_000.0,
    1e6,
    1e7,
    -999.0,
    1.5,
    0.0,
    1.0,
    280.1,
    12_345_678.0,
    1_234_567.0,
    0.0001,
    0.00001,
];

/// The double values of f1.cdl.
const DOUBLES: [f64; 11] = [
    1e20,
    1e-5,
    0.1,
    3.4028235e38,
    1.17549435e-38,
    5e-324,
    123_456_789.0,
    -0.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

/// More double values of f1.cdl.
const MORE_DOUBLES: [f64; 15] = [
    100_000.0,
    1e6,
    1e7,
    -999.0,
    1.5,
    0.0,
    1.0,
    280.1,
    1e15,
    1e16,
    1e17,
    0.0001,
    0.00001,
    std::f64::consts::PI,
    1_234_567_890_123_456_789.0,
];

fn floats_as_attribute(values: &[f32], digits: usize) -> String {
    values
        .iter()
        .map(|v| attribute_float(*v, digits))
        .collect::<Vec<_>>()
        .join(", ")
}

fn doubles_as_attribute(values: &[f64], digits: usize) -> String {
    values
        .iter()
        .map(|v| attribute_double(*v, digits))
        .collect::<Vec<_>>()
        .join(", ")
}

fn floats_as_data(values: &[f32], digits: usize) -> String {
    values
        .iter()
        .map(|v| data_float(*v, digits))
        .collect::<Vec<_>>()
        .join(", ")
}

fn doubles_as_data(values: &[f64], digits: usize) -> String {
    values
        .iter()
        .map(|v| data_double(*v, digits))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn float_attributes_default_precision() {
    let p = Precision::default().float;
    assert_eq!(
        floats_as_attribute(&FLOATS, p),
        "1.e+20f, 1.e-05f, 0.1f, 3.402823e+38f, 1.175494e-38f, 1.401298e-45f, 1.234568e+08f, \
         -0.f, NaNf, Infinityf, -Infinityf"
    );
    assert_eq!(
        floats_as_attribute(&MORE_FLOATS, p),
        "100000.f, 1000000.f, 1.e+07f, -999.f, 1.5f, 0.f, 1.f, 280.1f, 1.234568e+07f, \
         1234567.f, 0.0001f, 1.e-05f"
    );
}

#[test]
fn double_attributes_default_precision() {
    let p = Precision::default().double;
    assert_eq!(
        doubles_as_attribute(&DOUBLES, p),
        "1.e+20, 1.e-05, 0.1, 3.4028235e+38, 1.17549435e-38, 4.94065645841247e-324, \
         123456789., -0., NaN, Infinity, -Infinity"
    );
    assert_eq!(
        doubles_as_attribute(&MORE_DOUBLES, p),
        "100000., 1000000., 10000000., -999., 1.5, 0., 1., 280.1, 1.e+15, 1.e+16, 1.e+17, \
         0.0001, 1.e-05, 3.14159265358979, 1.23456789012346e+18"
    );
    assert_eq!(
        attribute_double(9.969_209_968_386_87e36, p),
        "9.96920996838687e+36"
    );
}

#[test]
fn attributes_with_p_3_5() {
    assert_eq!(
        floats_as_attribute(&FLOATS, 3),
        "1.e+20f, 1.e-05f, 0.1f, 3.4e+38f, 1.18e-38f, 1.4e-45f, 1.23e+08f, -0.f, NaNf, \
         Infinityf, -Infinityf"
    );
    assert_eq!(
        floats_as_attribute(&MORE_FLOATS, 3),
        "1.e+05f, 1.e+06f, 1.e+07f, -999.f, 1.5f, 0.f, 1.f, 280.f, 1.23e+07f, 1.23e+06f, \
         0.0001f, 1.e-05f"
    );
    assert_eq!(
        doubles_as_attribute(&DOUBLES, 5),
        "1.e+20, 1.e-05, 0.1, 3.4028e+38, 1.1755e-38, 4.9407e-324, 1.2346e+08, -0., NaN, \
         Infinity, -Infinity"
    );
    assert_eq!(
        doubles_as_attribute(&MORE_DOUBLES, 5),
        "1.e+05, 1.e+06, 1.e+07, -999., 1.5, 0., 1., 280.1, 1.e+15, 1.e+16, 1.e+17, 0.0001, \
         1.e-05, 3.1416, 1.2346e+18"
    );
    assert_eq!(attribute_double(9.969_209_968_386_87e36, 5), "9.9692e+36");
}

#[test]
fn attributes_with_p_10_17() {
    assert_eq!(
        floats_as_attribute(&FLOATS, 10),
        "1.00000002e+20f, 9.999999747e-06f, 0.1000000015f, 3.402823466e+38f, \
         1.175494351e-38f, 1.401298464e-45f, 123456792.f, -0.f, NaNf, Infinityf, -Infinityf"
    );
    assert_eq!(
        floats_as_attribute(&MORE_FLOATS, 10),
        "100000.f, 1000000.f, 10000000.f, -999.f, 1.5f, 0.f, 1.f, 280.1000061f, 12345678.f, \
         1234567.f, 9.999999747e-05f, 9.999999747e-06f"
    );
    assert_eq!(
        doubles_as_attribute(&DOUBLES, 17),
        "1.e+20, 1.0000000000000001e-05, 0.10000000000000001, 3.4028234999999999e+38, \
         1.17549435e-38, 4.9406564584124654e-324, 123456789., -0., NaN, Infinity, -Infinity"
    );
    assert_eq!(
        doubles_as_attribute(&MORE_DOUBLES, 17),
        "100000., 1000000., 10000000., -999., 1.5, 0., 1., 280.10000000000002, \
         1000000000000000., 10000000000000000., 1.e+17, 0.0001, 1.0000000000000001e-05, \
         3.1415926535897931, 1.2345678901234568e+18"
    );
    assert_eq!(
        attribute_double(9.969_209_968_386_87e36, 17),
        "9.9692099683868702e+36"
    );
}

#[test]
fn attributes_with_p_20_20_and_1_1() {
    assert_eq!(
        floats_as_attribute(&MORE_FLOATS, 20),
        "100000.f, 1000000.f, 10000000.f, -999.f, 1.5f, 0.f, 1.f, 280.100006103515625f, \
         12345678.f, 1234567.f, 9.9999997473787516356e-05f, 9.9999997473787516356e-06f"
    );
    assert_eq!(
        doubles_as_attribute(&DOUBLES, 20),
        "1.e+20, 1.0000000000000000818e-05, 0.10000000000000000555, \
         3.4028234999999999175e+38, 1.1754943499999999604e-38, 4.9406564584124654418e-324, \
         123456789., -0., NaN, Infinity, -Infinity"
    );
    assert_eq!(
        floats_as_attribute(&MORE_FLOATS, 1),
        "1.e+05f, 1.e+06f, 1.e+07f, -1.e+03f, 2.f, 0.f, 1.f, 3.e+02f, 1.e+07f, 1.e+06f, \
         0.0001f, 1.e-05f"
    );
    assert_eq!(
        doubles_as_attribute(&DOUBLES, 1),
        "1.e+20, 1.e-05, 0.1, 3.e+38, 1.e-38, 5.e-324, 1.e+08, -0., NaN, Infinity, -Infinity"
    );
}

/// The float data of f1.cdl: FLOATS, MORE_FLOATS without -999, then 1/3 and 2.5e-10.
fn float_data() -> Vec<f32> {
    let mut values = FLOATS.to_vec();
    values.extend(MORE_FLOATS.iter().filter(|v| **v != -999.0));
    values.extend([0.333_333_34, 2.5e-10]);
    values
}

/// The double data of f1.cdl.
fn double_data() -> Vec<f64> {
    let mut values = DOUBLES.to_vec();
    values.extend([
        100_000.0,
        1e6,
        1e7,
        1.5,
        0.0,
        1.0,
        280.1,
        1e15,
        1e16,
        1e17,
        0.0001,
        std::f64::consts::PI,
        1_234_567_890_123_456_789.0,
    ]);
    values
}

#[test]
fn data_default_precision() {
    assert_eq!(
        floats_as_data(&float_data(), 7),
        "1e+20, 1e-05, 0.1, 3.402823e+38, 1.175494e-38, 1.401298e-45, 1.234568e+08, -0, \
         NaNf, Infinityf, -Infinityf, 100000, 1000000, 1e+07, 1.5, 0, 1, 280.1, \
         1.234568e+07, 1234567, 0.0001, 1e-05, 0.3333333, 2.5e-10"
    );
    assert_eq!(
        doubles_as_data(&double_data(), 15),
        "1e+20, 1e-05, 0.1, 3.4028235e+38, 1.17549435e-38, 4.94065645841247e-324, \
         123456789, -0, NaN, Infinity, -Infinity, 100000, 1000000, 10000000, 1.5, 0, 1, \
         280.1, 1e+15, 1e+16, 1e+17, 0.0001, 3.14159265358979, 1.23456789012346e+18"
    );
}

#[test]
fn data_with_p_10_17() {
    assert_eq!(
        floats_as_data(&float_data(), 10),
        "1.00000002e+20, 9.999999747e-06, 0.1000000015, 3.402823466e+38, 1.175494351e-38, \
         1.401298464e-45, 123456792, -0, NaNf, Infinityf, -Infinityf, 100000, 1000000, \
         10000000, 1.5, 0, 1, 280.1000061, 12345678, 1234567, 9.999999747e-05, \
         9.999999747e-06, 0.3333333433, 2.499999929e-10"
    );
    assert_eq!(
        doubles_as_data(&double_data(), 17),
        "1e+20, 1.0000000000000001e-05, 0.10000000000000001, 3.4028234999999999e+38, \
         1.17549435e-38, 4.9406564584124654e-324, 123456789, -0, NaN, Infinity, -Infinity, \
         100000, 1000000, 10000000, 1.5, 0, 1, 280.10000000000002, 1000000000000000, \
         10000000000000000, 1e+17, 0.0001, 3.1415926535897931, 1.2345678901234568e+18"
    );
}

#[test]
fn compound_and_vlen_members_print_like_data() {
    // cp.cdl: `fv w:b = {1e+20, 280.1, 0.1}, {3} ;`, and with -p 3,4 `{1e+20, 280, 0.1}`.
    let members = [1e20f32, 280.1, 0.1];
    assert_eq!(floats_as_data(&members, 7), "1e+20, 280.1, 0.1");
    assert_eq!(floats_as_data(&members, 3), "1e+20, 280, 0.1");
    assert_eq!(data_float(1.2345, 3), "1.23");
    assert_eq!(data_double(1.2345, 4), "1.234");
}

#[test]
fn integer_attributes_carry_type_suffixes() {
    // i1.cdl.
    assert_eq!(
        format!(
            "{}, {}, {}",
            attribute_byte(-128),
            attribute_byte(127),
            attribute_byte(0)
        ),
        "-128b, 127b, 0b"
    );
    assert_eq!(
        format!("{}, {}", attribute_short(-32768), attribute_short(32767)),
        "-32768s, 32767s"
    );
    assert_eq!(
        format!("{}, {}", attribute_int(i32::MIN), attribute_int(i32::MAX)),
        "-2147483648, 2147483647"
    );
    assert_eq!(
        format!("{}, {}", attribute_ubyte(0), attribute_ubyte(255)),
        "0UB, 255UB"
    );
    assert_eq!(
        format!("{}, {}", attribute_ushort(0), attribute_ushort(65535)),
        "0US, 65535US"
    );
    assert_eq!(
        format!("{}, {}", attribute_uint(0), attribute_uint(u32::MAX)),
        "0U, 4294967295U"
    );
    assert_eq!(
        format!(
            "{}, {}",
            attribute_int64(i64::MIN),
            attribute_int64(i64::MAX)
        ),
        "-9223372036854775808LL, 9223372036854775807LL"
    );
    assert_eq!(
        format!("{}, {}", attribute_uint64(0), attribute_uint64(u64::MAX)),
        "0ULL, 18446744073709551615ULL"
    );
}

#[test]
fn ncml_attributes() {
    // ncdump -x f3.nc (classic copy of f1.cdl).
    let floats: Vec<String> = FLOATS.iter().map(|v| ncml_float(*v, 7)).collect();
    assert_eq!(
        floats.join(" "),
        "1.e+20 1.e-05 0.1 3.402823e+38 1.175494e-38 1.401298e-45 1.234568e+08 -0. nan inf -inf"
    );
    let doubles: Vec<String> = MORE_DOUBLES.iter().map(|v| ncml_double(*v, 15)).collect();
    assert_eq!(
        doubles.join(" "),
        "100000. 1000000. 10000000. -999. 1.5 0. 1. 280.1 1.e+15 1.e+16 1.e+17 0.0001 1.e-05 \
         3.14159265358979 1.23456789012346e+18"
    );
    let floats: Vec<String> = MORE_FLOATS.iter().map(|v| ncml_float(*v, 3)).collect();
    assert_eq!(
        floats.join(" "),
        "1.e+05 1.e+06 1.e+07 -999. 1.5 0. 1. 280. 1.23e+07 1.23e+06 0.0001 1.e-05"
    );
}

#[test]
fn ncml_64_bit_integers_go_through_double() {
    // ncdump -x x5.nc (CDF5).
    let signed: Vec<String> = [i64::MIN, i64::MAX, 9_007_199_254_740_993]
        .iter()
        .map(|v| ncml_int64(*v))
        .collect();
    assert_eq!(
        signed.join(" "),
        "-9223372036854775808 -9223372036854775808 9007199254740992"
    );
    let unsigned: Vec<String> = [
        0,
        u64::MAX,
        9_223_372_036_854_775_808,
        18_446_744_073_709_550_000,
    ]
    .iter()
    .map(|v| ncml_uint64(*v))
    .collect();
    assert_eq!(
        unsigned.join(" "),
        "0 0 9223372036854775808 18446744073709549568"
    );
}

#[test]
fn tztrim() {
    assert_eq!(trim_trailing_zeros("1.000000e+20"), "1.e+20");
    assert_eq!(trim_trailing_zeros("1.500000e+20f"), "1.5e+20f");
    assert_eq!(trim_trailing_zeros("-999.0000f"), "-999.f");
    assert_eq!(trim_trailing_zeros("123456789.000000"), "123456789.");
    assert_eq!(trim_trailing_zeros("0.1000000"), "0.1");
    assert_eq!(trim_trailing_zeros("nan"), "nan");
    assert_eq!(trim_trailing_zeros("-nan"), "-nan");
}

fn c_format(text: &str) -> CFormat {
    CFormat::parse(text).unwrap_or_else(|| panic!("unparsed C_format {text:?}"))
}

fn formatted(text: &str, values: &[CArg]) -> String {
    let format = c_format(text);
    values
        .iter()
        .map(|v| format.format_value(*v))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn c_format_attributes_on_data() {
    // i1.cdl, cf.cdl and one-variable files made with ncgen; ncdump's data lines.
    let f = |v: f32| CArg::from(v);
    let d = |v: f64| CArg::from(v);
    assert_eq!(
        formatted("%.3f", &[f(1.23456), f(-0.0005), f(1e20)]),
        "1.235, -0.001, 100000002004087734272.000"
    );
    assert_eq!(
        formatted("%8.2e|", &[d(1.23456), d(12345.0)]),
        "1.23e+00|, 1.23e+04|"
    );
    assert_eq!(
        formatted("%05d", &[CArg::from(1), CArg::from(-2)]),
        "00001, -0002"
    );
    assert_eq!(
        formatted("%x", &[CArg::from(-1i16), CArg::from(65i16)]),
        "ffffffff, 41"
    );
    assert_eq!(formatted("%lx", &[CArg::from(-1i16)]), "ffffffff");
    assert_eq!(
        formatted("%hhd", &[CArg::from(-1i16), CArg::from(300i16)]),
        "-1, 44"
    );
    assert_eq!(
        formatted("%hhd", &[CArg::from(255u16), CArg::from(128u16)]),
        "-1, -128"
    );
    assert_eq!(
        formatted("%c", &[CArg::from(65i16), CArg::from(66i16)]),
        "A, B"
    );
    assert_eq!(
        formatted("%c|", &[CArg::from(0), CArg::from(65), CArg::from(256)]),
        ", A|, "
    );
    assert_eq!(
        formatted("%#o", &[CArg::from(0u8), CArg::from(8u8)]),
        "0, 010"
    );
    assert_eq!(
        formatted("%x", &[CArg::from(255u8), CArg::from(-1i8)]),
        "ff, ffffffff"
    );
    assert_eq!(formatted("%u", &[CArg::from(-1i8)]), "4294967295");
    assert_eq!(
        formatted("%a", &[f(0.1), f(1e-40), f(0.0)]),
        "0x1.99999ap-4, 0x1.16c2p-133, 0x0p+0"
    );
    assert_eq!(
        formatted("%.2A", &[d(0.1), d(1e-310), d(1.0)]),
        "0X1.9AP-4, 0X0.01P-1022, 0X1.00P+0"
    );
    assert_eq!(
        formatted("%E", &[f(0.1), f(1e-40)]),
        "1.000000E-01, 9.999946E-41"
    );
    assert_eq!(
        formatted("%G", &[f(0.1), f(1e-40), f(1e-5)]),
        "0.1, 9.99995E-41, 1E-05"
    );
    assert_eq!(
        formatted("%.0d|", &[CArg::from(0), CArg::from(-1)]),
        "|, -1|"
    );
    assert_eq!(formatted("% d", &[CArg::from(0), CArg::from(-1)]), " 0, -1");
    assert_eq!(formatted("abc", &[d(1.0)]), "abc");
    assert_eq!(
        formatted("%08.2f", &[d(-1.5), d(2.0)]),
        "-0001.50, 00002.00"
    );
    assert_eq!(formatted("%-8.2f|", &[d(-1.5)]), "-1.50   |");
    assert_eq!(
        formatted("%d", &[CArg::from(-1i64), CArg::from(4_294_967_296i64)]),
        "-1, 0"
    );
    assert_eq!(formatted("%x", &[CArg::from(-1i64)]), "ffffffff");
    assert_eq!(formatted("%5.1f%%", &[f(1.0)]), "  1.0%");
    assert_eq!(
        formatted("%.3e", &[d(1e300), d(0.0)]),
        "1.000e+300, 0.000e+00"
    );
    assert_eq!(formatted("%'.2f", &[d(1_234_567.891)]), "1234567.89");
    assert_eq!(formatted("%.0f", &[d(0.5), d(1.5), d(2.5)]), "0, 2, 2");
    assert_eq!(formatted("%#.0f", &[d(0.5)]), "0.");
    assert_eq!(formatted("%#.0e", &[d(0.5), d(1.5)]), "5.e-01, 2.e+00");
    assert_eq!(formatted("%+g", &[d(0.5), d(-0.0)]), "+0.5, -0");
    assert_eq!(formatted("%lf", &[d(1.0)]), "1.000000");
    assert_eq!(
        formatted("%#.2g", &[d(99.5), d(9.5), d(-0.0)]),
        "1.e+02, 9.5, -0.0"
    );
    assert_eq!(
        formatted("%#.3g", &[f(999.9), f(0.0001), f(1e-5)]),
        "1.e+03, 0.000100, 1.00e-05"
    );
    assert_eq!(
        formatted("%10.3e|", &[f(1e20), f(-1e-40)]),
        " 1.000e+20|, -1.000e-40|"
    );
}

#[test]
fn c_format_output_is_cut_to_99_bytes() {
    // ncdump with C_format "%100.3f", "%98.3f", "%.300f".
    let cut = c_format("%100.3f").format_value(CArg::from(1.0));
    assert_eq!(cut, format!("{}1.00", " ".repeat(95)));
    let whole = c_format("%98.3f").format_value(CArg::from(1.0));
    assert_eq!(whole, format!("{}1.000", " ".repeat(93)));
    let long = c_format("%.300f").format_value(CArg::from(3.0));
    assert_eq!(long, format!("3.{}", "0".repeat(97)));
}

#[test]
fn c_format_data_keeps_ncdump_spellings_for_non_finite_values() {
    // C_format "%+08.3f" on NaN, "%.1f%%" on ±Infinity.
    let format = c_format("%+08.3f");
    assert_eq!(data_double_c_format(&format, f64::NAN), "NaN");
    assert_eq!(data_double_c_format(&format, 1.0), "+001.000");
    assert_eq!(
        data_double_c_format(&c_format("%.1f%%"), f64::NEG_INFINITY),
        "-Infinity"
    );
    assert_eq!(data_float_c_format(&c_format("%.2f"), f32::NAN), "NaNf");
    assert_eq!(data_float_c_format(&c_format("%.2f"), 1.2345), "1.23");
}

#[test]
fn c_format_attribute_acceptance() {
    assert!(CFormat::from_attribute(b"").is_none());
    assert!(CFormat::from_attribute(&[b'x'; 100]).is_none());
    assert!(CFormat::from_attribute(&[b'x'; 99]).is_some());
    let cut_at_nul =
        CFormat::from_attribute(b"%.2f\0junk").map(|f| f.format_value(CArg::from(1.0)));
    assert_eq!(cut_at_nul.as_deref(), Some("1.00"));
    // Formats that crash ncdump or print garbage are refused.
    for refused in ["%s", "%d %d", "%*d", "%1$d", "%Lf", "%n", "%p", "50%"] {
        assert!(CFormat::parse(refused).is_none(), "{refused:?}");
    }
}

#[test]
fn precision_option() {
    // ncdump -p ARG f1.nc: which digits took effect, or ncdump's complaint.
    let option = |arg: &str| parse_precision_option(arg);
    let given = |float, double, float_specified, double_specified| {
        Ok(PrecisionOption {
            precision: Precision { float, double },
            float_specified,
            double_specified,
        })
    };
    assert_eq!(option("3,5"), given(3, 5, true, true));
    assert_eq!(option(",10"), given(7, 15, false, false));
    assert_eq!(option("3"), given(3, 15, true, false));
    assert_eq!(option("3x,10"), given(3, 15, true, false));
    assert_eq!(option(" 4,6"), given(4, 6, true, true));
    assert_eq!(option("+4,+6"), given(4, 6, true, true));
    assert_eq!(option("4,6x"), given(4, 6, true, true));
    assert_eq!(option("20,20"), given(20, 20, true, true));
    assert_eq!(option("3,"), Err(PrecisionError::Double(0)));
    assert_eq!(option("3,x"), Err(PrecisionError::Double(0)));
    assert_eq!(option("0"), Err(PrecisionError::Float(0)));
    assert_eq!(option("21"), Err(PrecisionError::Float(21)));
    assert_eq!(option("abc"), Err(PrecisionError::Float(0)));
    assert_eq!(
        PrecisionError::Float(0).to_string(),
        "unreasonable value for float significant digits: 0"
    );
    assert_eq!(
        PrecisionError::Double(0).to_string(),
        "unreasonable value for double significant digits: 0"
    );
    assert_eq!(
        Precision::default(),
        Precision {
            float: 7,
            double: 15
        }
    );
}

#[test]
fn nan_payloads_and_signs() {
    // rnd.nc (random bit patterns; ncdump and ncdump -x of its classic copy): the sign of
    // a NaN shows in NcML only.
    let positive = f32::from_bits(0x7f91_2feb);
    let negative = f32::from_bits(0xffd6_782c);
    let negative_double = f64::from_bits(0xfff8_ed1e_ef3c_417b);
    assert_eq!(attribute_float(positive, 7), "NaNf");
    assert_eq!(attribute_float(negative, 7), "NaNf");
    assert_eq!(data_float(negative, 7), "NaNf");
    assert_eq!(attribute_double(negative_double, 15), "NaN");
    assert_eq!(data_double(negative_double, 15), "NaN");
    assert_eq!(ncml_float(positive, 7), "nan");
    assert_eq!(ncml_float(negative, 7), "-nan");
    assert_eq!(ncml_double(negative_double, 15), "-nan");
}
