//! The data tokenizer: tokens of one entry, ncgen's list grammar, and streaming a big file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};

use cdl::parse::{parse_header, Constant, DataReader, DataToken};
use ncmodel::AtomicType;

fn tokens(text: &str) -> Result<Vec<DataToken>, String> {
    let mut r = DataReader::new(text.as_bytes(), "d.cdl", 1, 1);
    let mut out = Vec::new();
    loop {
        match r.next() {
            Ok(Some(t)) => out.push(t),
            Ok(None) => return Ok(out),
            Err(e) => return Err(e.render()),
        }
    }
}

fn constants(text: &str) -> Vec<Constant> {
    tokens(text)
        .unwrap()
        .into_iter()
        .filter_map(|t| match t {
            DataToken::Constant(c, _) => Some(c),
            _ => None,
        })
        .collect()
}

#[test]
fn constants_of_every_kind() {
    let c = constants(
        " 1, -2, 3.5, 4.5f, 5b, 6us, 7ull, \"s\\n\", 'c', _, NaN, -Infinityf, 0xAB1, e_t.A, /g/B, NIL, time(\"x\", 1) ;",
    );
    assert_eq!(
        c[0],
        Constant::Int {
            value: 1,
            ty: AtomicType::Int
        }
    );
    assert_eq!(
        c[1],
        Constant::Int {
            value: -2,
            ty: AtomicType::Int
        }
    );
    assert_eq!(
        c[2],
        Constant::Float {
            value: 3.5,
            ty: AtomicType::Double
        }
    );
    assert_eq!(
        c[3],
        Constant::Float {
            value: 4.5,
            ty: AtomicType::Float
        }
    );
    assert_eq!(
        c[4],
        Constant::Int {
            value: 5,
            ty: AtomicType::Byte
        }
    );
    assert_eq!(
        c[5],
        Constant::Int {
            value: 6,
            ty: AtomicType::UShort
        }
    );
    assert_eq!(
        c[6],
        Constant::Int {
            value: 7,
            ty: AtomicType::UInt64
        }
    );
    assert_eq!(c[7], Constant::Str(b"s\n".to_vec()));
    assert_eq!(c[8], Constant::Char(b'c'));
    assert_eq!(c[9], Constant::Fill);
    assert!(matches!(c[10], Constant::Float { value, ty: AtomicType::Double } if value.is_nan()));
    assert_eq!(
        c[11],
        Constant::Float {
            value: f64::NEG_INFINITY,
            ty: AtomicType::Float
        }
    );
    assert_eq!(c[12], Constant::Opaque(vec![0xab, 0x10]));
    assert_eq!(c[13], Constant::Name(vec!["e_t.A".into()]));
    assert_eq!(c[14], Constant::Name(vec!["g".into(), "B".into()]));
    assert_eq!(c[15], Constant::Nil);
    assert!(matches!(&c[16], Constant::Call { name, args } if name == "time" && args.len() == 2));
}

#[test]
fn braces_and_positions() {
    let t = tokens("{1, {2}},\n {} ;").unwrap();
    let kinds: Vec<&str> = t
        .iter()
        .map(|t| match t {
            DataToken::Open(_) => "{",
            DataToken::Close(_) => "}",
            DataToken::Constant(..) => "c",
        })
        .collect();
    assert_eq!(kinds, ["{", "c", "{", "c", "}", "}", "{", "}"]);
    let DataToken::Open(p) = t[6] else { panic!() };
    assert_eq!((p.line, p.col, p.offset), (2, 2, 11));
}

#[test]
fn list_grammar_like_ncgen() {
    assert!(tokens(" ;").unwrap().is_empty());
    assert_eq!(
        constants(", 1 ;").len(),
        1,
        "ncgen accepts one leading comma"
    );
    assert!(tokens("1,, 2 ;").is_err());
    assert!(tokens("1 2 ;").is_err());
    assert!(tokens("1, ;").is_err());
    assert!(tokens("{1 ;").is_err());
    assert!(tokens("1 } ;").is_err());
    assert!(tokens("1, 2").unwrap_err().contains("end of file"));
}

#[test]
fn reading_stops_at_the_semicolon() {
    let text = "1, 2 ; w = 3 ;";
    let mut r = DataReader::new(text.as_bytes(), "d.cdl", 1, 1);
    assert!(r.next().unwrap().is_some());
    assert!(r.next().unwrap().is_some());
    assert!(r.next().unwrap().is_none());
    assert!(r.next().unwrap().is_none());
}

/// 50 MB of float data: the header pass and the data pass both stream it.
#[test]
fn large_synthetic_file_streams() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.cdl");
    let rows: usize = 420_000;
    let cols: usize = 10;
    {
        let mut w = BufWriter::new(File::create(&path).unwrap());
        writeln!(w, "netcdf big {{\ndimensions:\n r = {rows} ; c = {cols} ;\nvariables:\n float v(r, c) ;\n int n ;\ndata:\n v =").unwrap();
        for i in 0..rows {
            let sep = if i + 1 == rows { " ;" } else { "," };
            let line: Vec<String> = (0..cols)
                .map(|j| format!("{:.6e}", (i * cols + j) as f64 * 1.5e-3))
                .collect();
            writeln!(w, "  {}{sep}", line.join(", ")).unwrap();
        }
        writeln!(w, " n = 7 ;\n}}").unwrap();
    }
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 50_000_000, "{size}");
    let h = parse_header(BufReader::new(File::open(&path).unwrap()), "big.cdl").unwrap();
    assert_eq!(h.data.len(), 2);
    let mut f = File::open(&path).unwrap();
    f.seek(SeekFrom::Start(h.data[0].offset)).unwrap();
    let mut r = DataReader::for_entry(BufReader::new(f), "big.cdl", &h.data[0]);
    let (mut count, mut last) = (0usize, 0.0);
    while let Some(t) = r.next().unwrap() {
        if let DataToken::Constant(Constant::Float { value, .. }, _) = t {
            count += 1;
            last = value;
        }
    }
    assert_eq!(count, rows * cols);
    let expected = (rows * cols - 1) as f64 * 1.5e-3;
    assert!((last - expected).abs() < expected * 1e-6, "{last}");
}
