//! `ncgen -l c|python|f77|java`: the program ours writes is compiled and run, and the file
//! it creates must dump (reference ncdump, data and `-hs` alike) as the file our `ncgen -b`
//! writes from the same CDL, for the corpus CDLs the reference ncgen accepts.
//!
//! A representative part of the corpus runs here; the whole corpus, per kind, runs with
//! `cargo test --test cli ncgen_code -- --ignored --nocapture`, which prints the counts.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{
    corpus, first_difference, netcdf4_python, ok, reference, run, scratch, skip, test_data, Test,
};

/// How one CDL fared.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// The reference ncgen makes no file of it: nothing to compare.
    ReferenceRejects,
    /// The program's file dumps as ours.
    Pass,
    /// Headers alike, but the data is not comparable: our own `ncgen -b` writes
    /// different data from run to run (never-written `_NoFill` variables).
    HeaderPass,
    /// Our `ncgen -b` rejects what the reference accepts, and so does our code
    /// generation: a difference of ncgen itself, not of the code.
    NcgenRejects,
    /// Our generator refuses the CDL: the language cannot hold something in it (exit 1,
    /// a message saying what it cannot write).
    CannotHold,
    /// Headers alike; the data dumps past the cap of what the tests read.
    TooLarge,
    /// Anything else, with what went wrong.
    Fail(String),
}

/// A language whose programs the tests build and run.
#[derive(Debug, Clone, Copy)]
enum Lang {
    C,
    Python,
    Fortran,
}

impl Lang {
    fn option(self) -> &'static str {
        match self {
            Self::C => "c",
            Self::Python => "python",
            Self::Fortran => "f77",
        }
    }

    /// The dump as this language's files can match it: netCDF4-python defines
    /// `_FillValue` and quantization with the variable, so their attributes come first
    /// among the variable's (docs/ncgen.md says so); the dumps of Python's files are
    /// compared with them moved first.
    fn comparable(self, dump: String) -> String {
        match self {
            Self::Python => fill_value_first(&dump),
            Self::C | Self::Fortran => dump,
        }
    }

    fn source_name(self) -> &'static str {
        match self {
            Self::C => "prog.c",
            Self::Python => "prog.py",
            Self::Fortran => "prog.f",
        }
    }

    /// What building and running a program needs, or `None` after a skip (a failure in
    /// CI).
    fn toolchain(self) -> Option<Vec<PathBuf>> {
        let needed: &[&str] = match self {
            Self::C => &["gcc"],
            Self::Python => &[],
            Self::Fortran => &["gfortran"],
        };
        let mut found = Vec::new();
        for tool in needed {
            found.push(program(tool)?);
        }
        if let Self::Python = self {
            found.push(netcdf4_python()?);
        }
        Some(found)
    }

    /// Builds and runs the program `source` in `dir`; `Err` says what failed.
    fn build_and_run(self, tools: &[PathBuf], dir: &Path, source: &Path) -> Result<(), String> {
        let runs = match self {
            Self::C => vec![
                Command::new(&tools[0])
                    .args(["-w", "-o", "prog"])
                    .arg(source)
                    .args(["-lnetcdf", "-lm"])
                    .current_dir(dir)
                    .output(),
                Command::new(dir.join("prog")).current_dir(dir).output(),
            ],
            Self::Fortran => vec![
                Command::new(&tools[0])
                    .args(["-w", "-o", "prog"])
                    .arg(source)
                    .args(["-I/usr/include", "-lnetcdff"])
                    .current_dir(dir)
                    .output(),
                Command::new(dir.join("prog")).current_dir(dir).output(),
            ],
            Self::Python => vec![Command::new(&tools[0])
                .arg(source)
                .current_dir(dir)
                .output()],
        };
        for (step, done) in runs.into_iter().enumerate() {
            let done = done.map_err(|e| format!("step {step}: {e}"))?;
            if !done.status.success() {
                return Err(format!(
                    "step {step} failed: {}{}",
                    String::from_utf8_lossy(&done.stdout),
                    String::from_utf8_lossy(&done.stderr)
                ));
            }
        }
        Ok(())
    }
}

/// `dump` with each variable's `_FillValue` line, then the quantize attribute's, moved
/// just after the variable's declaration (so `_FillValue` first, the quantize attribute
/// next).
fn fill_value_first(dump: &str) -> String {
    let once = move_first(dump, ":_Quantize");
    move_first(&once, ":_FillValue = ")
}

/// `dump` with each variable's attribute line containing `marker` moved just after the
/// variable's declaration.
fn move_first(dump: &str, marker: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let mut declaration = None;
    for line in dump.lines() {
        let is_attribute = line.starts_with("\t\t");
        if !is_attribute && line.starts_with('\t') && line.ends_with(" ;") {
            declaration = Some(lines.len());
        } else if !is_attribute {
            declaration = None;
        }
        match declaration {
            Some(at) if is_attribute && line.contains(marker) => lines.insert(at + 1, line),
            _ => lines.push(line),
        }
    }
    lines.join("\n")
}

/// A program on the PATH (or in /usr/bin), or `None` after a skip (a failure in CI).
fn program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        skip(&format!("{name} (scripts/setup installs it)"));
    }
    found
}

/// The most of a dump the tests read: files declaring gigabytes of never-written data
/// (the corpus's `bigf3`, `bigr3` as netCDF-4) dump as billions of `_`.
const DUMP_CAP: u64 = 64 << 20;

/// Why a dump gave no text to compare.
#[derive(Debug)]
enum DumpError {
    /// Longer than [`DUMP_CAP`]: not compared.
    TooLarge,
    /// The dump failed.
    Failed(String),
}

/// The reference ncdump of `file` with `option`, without `_NCProperties` (it names the
/// library that wrote the file), read up to [`DUMP_CAP`].
fn dump(option: Option<&str>, file: &Path) -> Result<String, DumpError> {
    use std::io::Read;
    let Some(ncdump) = reference("ncdump") else {
        return Err(DumpError::Failed("no reference ncdump".into()));
    };
    let mut child = Command::new(ncdump)
        .args(option)
        .arg(file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| DumpError::Failed(format!("cannot run ncdump: {e}")))?;
    let mut text = Vec::new();
    let read = child
        .stdout
        .take()
        .map(|out| out.take(DUMP_CAP + 1).read_to_end(&mut text));
    if text.len() as u64 > DUMP_CAP {
        let _ = child.kill();
        let _ = child.wait();
        return Err(DumpError::TooLarge);
    }
    let status = child
        .wait()
        .map_err(|e| DumpError::Failed(format!("ncdump: {e}")))?;
    if !status.success() || !matches!(read, Some(Ok(_))) {
        return Err(DumpError::Failed(format!(
            "ncdump {option:?} {file:?} failed"
        )));
    }
    Ok(String::from_utf8_lossy(&text)
        .lines()
        .filter(|l| !l.contains("_NCProperties"))
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Builds `cdl` with `kind` (none: ncgen's own choice) three ways in `dir`: the
/// reference `ncgen -b` (whether it accepts it), ours, and the program ours writes, and
/// compares the last two.
fn check_case(
    lang: Lang,
    tools: &[PathBuf],
    dir: &Path,
    cdl: &Path,
    kind: Option<&str>,
) -> Outcome {
    let name = cdl
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = format!("{name}.nc");
    let kind_args: Vec<&str> = kind.map(|k| vec!["-k", k]).unwrap_or_default();
    let sub = |what: &str| {
        let d = dir.join(what);
        fs::create_dir_all(&d).unwrap_or_else(|e| panic!("cannot make {d:?}: {e}"));
        d
    };
    let (theirs, ours, again, prog) = (sub("ref"), sub("ours"), sub("again"), sub("prog"));
    let Some(ncgen) = reference("ncgen") else {
        return Outcome::Fail("no reference ncgen".into());
    };
    let made = run(Command::new(ncgen)
        .arg("-b")
        .args(&kind_args)
        .arg("-o")
        .arg(theirs.join(&file))
        .arg(cdl));
    if made.code != Some(0) || !theirs.join(&file).exists() {
        return Outcome::ReferenceRejects;
    }
    // Files of gigabytes (the corpus's CDF5 `bigf3`) are not built three times.
    if fs::metadata(theirs.join(&file)).is_ok_and(|m| m.len() > 1 << 30) {
        return Outcome::TooLarge;
    }
    let ours_run = Test::ours("ncgen")
        .arg("-b")
        .args(&kind_args)
        .arg("-o")
        .arg(ours.join(&file))
        .arg(cdl)
        .run();
    if ours_run.code != Some(0) {
        // Where our ncgen itself differs from the reference (the ncgen conformance
        // tests count those), its code generation must reject the CDL too.
        let code = Test::ours("ncgen")
            .args(["-l", lang.option()])
            .args(&kind_args)
            .arg(cdl)
            .run();
        return if code.code == ours_run.code {
            Outcome::NcgenRejects
        } else {
            Outcome::Fail(format!("our ncgen -b: {}", ours_run.stderr))
        };
    }
    let code = Test::ours("ncgen")
        .args(["-l", lang.option()])
        .args(&kind_args)
        .arg("-o")
        .arg(prog.join(&file))
        .arg(cdl)
        .run();
    if code.code == Some(1) && code.stderr.contains(" cannot write ") {
        return Outcome::CannotHold;
    }
    if code.code != Some(0) {
        return Outcome::Fail(format!("our ncgen -l {}: {}", lang.option(), code.stderr));
    }
    let source = prog.join(lang.source_name());
    fs::write(&source, &code.stdout).unwrap_or_else(|e| panic!("cannot write {source:?}: {e}"));
    if let Err(e) = lang.build_and_run(tools, &prog, &source) {
        return Outcome::Fail(format!("the program: {e}"));
    }
    let compare = |option: Option<&str>, a: &Path, b: &Path| -> Result<bool, String> {
        let (x, y) = match (dump(option, a), dump(option, b)) {
            (Ok(x), Ok(y)) => (lang.comparable(x), lang.comparable(y)),
            (Err(DumpError::TooLarge), Err(DumpError::TooLarge)) => return Ok(false),
            (Err(DumpError::Failed(e)), _) | (_, Err(DumpError::Failed(e))) => return Err(e),
            (Err(DumpError::TooLarge), _) | (_, Err(DumpError::TooLarge)) => {
                return Err(format!(
                    "ncdump {}: one dump is too large",
                    option.unwrap_or("")
                ))
            }
        };
        if x == y {
            Ok(true)
        } else {
            Err(format!(
                "ncdump {}: first difference at {}",
                option.unwrap_or(""),
                first_difference(&x, &y)
            ))
        }
    };
    // The reference ncdump -s fails on CDF5 files ("Attempting netcdf-4 operation on
    // netcdf-3 file"): their headers are compared with -h.
    let header = match dump(Some("-hs"), &ours.join(&file)) {
        Err(DumpError::Failed(_)) => "-h",
        _ => "-hs",
    };
    if let Err(e) = compare(Some(header), &ours.join(&file), &prog.join(&file)) {
        return Outcome::Fail(e);
    }
    match compare(None, &ours.join(&file), &prog.join(&file)) {
        Ok(true) => Outcome::Pass,
        Ok(false) => Outcome::TooLarge,
        Err(e) => {
            // Is our own file the same from run to run?
            let again_run = Test::ours("ncgen")
                .arg("-b")
                .args(&kind_args)
                .arg("-o")
                .arg(again.join(&file))
                .arg(cdl)
                .run();
            if again_run.code == Some(0)
                && compare(None, &ours.join(&file), &again.join(&file)).is_err()
            {
                Outcome::HeaderPass
            } else {
                Outcome::Fail(e)
            }
        }
    }
}

/// Runs `names` of the corpus (every CDL when empty) for each of `kinds` and returns
/// `(kind, name, outcome)`.
fn run_corpus(
    lang: Lang,
    names: &[&str],
    kinds: &[Option<&str>],
) -> Option<Vec<(String, String, Outcome)>> {
    let tools = lang.toolchain()?;
    let corpus = corpus()?;
    reference("ncgen")?;
    reference("ncdump")?;
    let mut cdls: Vec<PathBuf> = if names.is_empty() {
        fs::read_dir(&corpus)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "cdl"))
                    .collect()
            })
            .unwrap_or_default()
    } else {
        names
            .iter()
            .map(|n| corpus.join(format!("{n}.cdl")))
            .collect()
    };
    cdls.sort();
    let mut results = Vec::new();
    for kind in kinds {
        for cdl in &cdls {
            let dir = scratch();
            let outcome = check_case(lang, &tools, dir.path(), cdl, *kind);
            let name = cdl.file_stem().map(|s| s.to_string_lossy().into_owned());
            results.push((
                kind.unwrap_or("default").to_string(),
                name.unwrap_or_default(),
                outcome,
            ));
        }
    }
    Some(results)
}

/// Fails on any failed case, after printing counts per kind.
fn assert_all_pass(lang: Lang, results: &[(String, String, Outcome)]) {
    let mut kinds: Vec<&str> = results.iter().map(|r| r.0.as_str()).collect();
    kinds.dedup();
    for kind in kinds {
        let of_kind = || results.iter().filter(move |r| r.0 == kind);
        let count = |pred: &dyn Fn(&Outcome) -> bool| of_kind().filter(|r| pred(&r.2)).count();
        eprintln!(
            "ncgen -l {} -k {kind}: {} pass, {} pass (header; data not comparable), {} pass \
             (header; data too large to dump), {} the language cannot hold, {} fail, {} the \
             reference rejects, {} our ncgen -b rejects (and -l too)",
            lang.option(),
            count(&|o| *o == Outcome::Pass),
            count(&|o| *o == Outcome::HeaderPass),
            count(&|o| *o == Outcome::TooLarge),
            count(&|o| *o == Outcome::CannotHold),
            count(&|o| matches!(o, Outcome::Fail(_))),
            count(&|o| *o == Outcome::ReferenceRejects),
            count(&|o| *o == Outcome::NcgenRejects),
        );
    }
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(kind, name, o)| match o {
            Outcome::Fail(why) => Some(format!("-k {kind} {name}: {why}")),
            _ => None,
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        results.iter().any(|r| r.2 == Outcome::Pass),
        "no case was compared"
    );
}

/// Corpus CDLs with every part of the model: compounds with array fields, vlens, opaque,
/// enums, groups with scoped types, strings, chars, NaNs, UTF-8 names, filters, storage
/// and byte-order attributes, unlimited dimensions, calendars.
const REPRESENTATIVE: &[&str] = &[
    "ncdump_cdl_ref_tst_comp2",
    "ncdump_ref_tst_compounds4",
    "ncdump_ref_tst_vlen_data",
    "ncdump_cdl_ref_tst_vlen_data2",
    "ncdump_cdl_ref_tst_opaque_data",
    "ncdump_cdl_ref_tst_econst",
    "ncdump_ref_tst_group_data",
    "ncdump_cdl_ref_typescope",
    "ncdump_cdl_ref_tst_string_data",
    "ncdump_cdl_ref_tst_chardata",
    "ncdump_cdl_ref_tst_nans",
    "ncdump_cdl_ref_tst_utf8",
    "ncdump_cdl_ref_tst_special_atts3",
    "nc_test4_bzip2",
    "nc_test4_ref_filtered",
    "ncdump_cdl_unlimtest1",
    "ncdump_tst_brecs",
    "ncdump_cdl_small",
];

const ALL_KINDS: [Option<&str>; 6] = [
    None,
    Some("nc4"),
    Some("nc3"),
    Some("nc6"),
    Some("nc5"),
    Some("nc7"),
];

#[test]
fn c_programs_write_the_files_ncgen_writes() {
    let Some(results) = run_corpus(Lang::C, REPRESENTATIVE, &[None, Some("nc4"), Some("nc3")])
    else {
        return;
    };
    assert_all_pass(Lang::C, &results);
}

#[test]
#[ignore = "the whole corpus, every kind: minutes; run with --ignored"]
fn c_programs_of_the_whole_corpus() {
    let Some(results) = run_corpus(Lang::C, &[], &ALL_KINDS) else {
        return;
    };
    assert_all_pass(Lang::C, &results);
}

/// Every special attribute, quantization by all three algorithms included, which the
/// reference's C output gets wrong (it always writes `NC_NOQUANTIZE`).
#[test]
fn c_programs_keep_every_special_attribute() {
    let Some(tools) = Lang::C.toolchain() else {
        return;
    };
    if reference("ncgen").is_none() || reference("ncdump").is_none() {
        return;
    }
    let dir = scratch();
    let cdl = test_data("ncgen_code/specials.cdl");
    let outcome = check_case(Lang::C, &tools, dir.path(), &cdl, None);
    assert_eq!(outcome, Outcome::Pass);
    let code = fs::read_to_string(dir.path().join("prog/prog.c")).unwrap_or_default();
    assert!(
        code.contains("NC_QUANTIZE_BITROUND, 9)"),
        "BitRound is not asked for:\n{code}"
    );
    let header =
        dump(Some("-hs"), &dir.path().join("prog/specials.nc")).unwrap_or_else(|e| panic!("{e:?}"));
    for expected in [
        "t:_QuantizeBitRoundNumberOfSignificantBits = 9 ;",
        "u:_QuantizeBitGroomNumberOfSignificantDigits = 3 ;",
        "w:_QuantizeGranularBitRoundNumberOfSignificantDigits = 4 ;",
        "t:_Filter = \"307,9\" ;",
        "u:_Endianness = \"big\" ;",
        "n:_NoFill = \"true\" ;",
    ] {
        assert!(header.contains(expected), "{expected} missing:\n{header}");
    }
}

/// `-x` (no fill for the whole file) and `-H` (header only) reach the program; `-c` is
/// `-l c`; the code goes to standard output and `-o` names the file it creates.
#[test]
fn c_option_forms_and_outputs() {
    let dir = scratch();
    let cdl = test_data("ncgen_code/specials.cdl");
    let short = Test::ours("ncgen")
        .args(["-c", "-x", "-o", "made.nc"])
        .arg(&cdl)
        .current_dir(dir.path())
        .run();
    ok("short", &short);
    assert!(short.stdout.contains("nc_create(\"made.nc\""));
    assert!(short.stdout.contains("nc_set_fill(ncid, NC_NOFILL, NULL);"));
    assert!(
        !dir.path().join("made.nc").exists(),
        "ncgen -c wrote the file itself"
    );
    let header_only = Test::ours("ncgen")
        .args(["-l", "C", "-H"])
        .arg(&cdl)
        .current_dir(dir.path())
        .run();
    ok("header_only", &header_only);
    assert!(header_only.stdout.contains("nc_create(\"specials.nc\""));
    assert!(!header_only.stdout.contains("nc_put_vara"));
    // Data goes into the program one slab of at most 65,536 values at a time.
    let values: Vec<String> = (0..70_000).map(|i| (i % 100).to_string()).collect();
    let big = dir.path().join("big.cdl");
    let text = format!(
        "netcdf big {{\ndimensions:\n  x = 70000 ;\nvariables:\n  byte v(x) ;\ndata:\n  v = {} ;\n}}\n",
        values.join(", ")
    );
    fs::write(&big, text).unwrap_or_else(|e| panic!("{e}"));
    let code = Test::ours("ncgen").args(["-l", "c"]).arg(&big).run();
    ok("code", &code);
    assert_eq!(code.stdout.matches("nc_put_vara_schar(").count(), 2);
    assert!(code.stdout.contains("static const signed char data[65536]"));
}

#[test]
fn python_scripts_write_the_files_ncgen_writes() {
    let Some(results) = run_corpus(Lang::Python, REPRESENTATIVE, &[None, Some("nc4")]) else {
        return;
    };
    assert_all_pass(Lang::Python, &results);
}

#[test]
#[ignore = "the whole corpus, every kind: minutes; run with --ignored"]
fn python_scripts_of_the_whole_corpus() {
    let Some(results) = run_corpus(Lang::Python, &[], &ALL_KINDS) else {
        return;
    };
    assert_all_pass(Lang::Python, &results);
}

/// Filters, quantization (`significant_digits=`, `quantize_mode=`), chunking, byte order
/// and fill through netCDF4-python's keywords; what it cannot write is refused.
#[test]
fn python_scripts_keep_the_special_attributes() {
    let Some(tools) = Lang::Python.toolchain() else {
        return;
    };
    if reference("ncgen").is_none() || reference("ncdump").is_none() {
        return;
    }
    let dir = scratch();
    let cdl = test_data("ncgen_code/specials.cdl");
    let outcome = check_case(Lang::Python, &tools, dir.path(), &cdl, None);
    assert_eq!(outcome, Outcome::Pass);
    let code = fs::read_to_string(dir.path().join("prog/prog.py")).unwrap_or_default();
    for expected in [
        "significant_digits=9, quantize_mode='BitRound'",
        "compression='bzip2', complevel=9",
        "compression='zlib', complevel=2",
        "shuffle=True",
        "fletcher32=True",
        "endian='big'",
    ] {
        assert!(code.contains(expected), "{expected} missing:\n{code}");
    }
    let opaque = "netcdf o {\ntypes:\n  opaque(2) op_t ;\nvariables:\n  op_t v ;\n}\n";
    let path = dir.path().join("o.cdl");
    fs::write(&path, opaque).unwrap_or_else(|e| panic!("{e}"));
    let refused = Test::ours("ncgen").args(["-l", "python"]).arg(&path).run();
    assert_eq!(refused.code, Some(1));
    assert!(
        refused
            .stderr
            .contains("netCDF4-python cannot write the opaque type op_t"),
        "{}",
        refused.stderr
    );
}

/// The corpus CDLs of the classic model among the representative ones, and the others,
/// which Fortran 77 code refuses.
const CLASSIC_REPRESENTATIVE: &[&str] = &[
    "ncdump_cdl_ref_tst_chardata",
    "ncdump_cdl_ref_tst_nans",
    "ncdump_cdl_ref_tst_utf8",
    "ncdump_cdl_unlimtest1",
    "ncdump_tst_brecs",
    "ncdump_cdl_small",
    "ncdump_cdl_example_good",
    "ncdump_cdl_ref_tst_comp2",
];

#[test]
fn fortran_programs_write_the_files_ncgen_writes() {
    let Some(results) = run_corpus(
        Lang::Fortran,
        CLASSIC_REPRESENTATIVE,
        &[None, Some("nc3"), Some("nc7")],
    ) else {
        return;
    };
    assert_all_pass(Lang::Fortran, &results);
    // The compound one is refused: Fortran 77 code holds the classic model only.
    assert!(results
        .iter()
        .any(|r| r.1 == "ncdump_cdl_ref_tst_comp2" && r.2 == Outcome::CannotHold));
}

#[test]
#[ignore = "the whole corpus, every kind: minutes; run with --ignored"]
fn fortran_programs_of_the_whole_corpus() {
    let Some(results) = run_corpus(Lang::Fortran, &[], &ALL_KINDS) else {
        return;
    };
    assert_all_pass(Lang::Fortran, &results);
}

/// Storage attributes in a netCDF-4 classic-model file, and the values no Fortran
/// constant spells (the most negative int, NaN, infinities, text with control
/// characters), set by statements after the `DATA`.
#[test]
fn fortran_programs_keep_special_attributes_and_values() {
    let Some(tools) = Lang::Fortran.toolchain() else {
        return;
    };
    if reference("ncgen").is_none() || reference("ncdump").is_none() {
        return;
    }
    let cdl = test_data("ncgen_code/classic_specials.cdl");
    for kind in ["nc7", "nc4"] {
        let dir = scratch();
        let outcome = check_case(Lang::Fortran, &tools, dir.path(), &cdl, Some(kind));
        assert_eq!(outcome, Outcome::Pass, "-k {kind}");
    }
    let quantized = test_data("ncgen_code/specials.cdl");
    let refused = Test::ours("ncgen")
        .args(["-f", "-k", "nc4"])
        .arg(&quantized)
        .run();
    assert_eq!(refused.code, Some(1));
    assert!(
        refused.stderr.contains("cannot write") && refused.stderr.contains("quantiz"),
        "{}",
        refused.stderr
    );
}

/// What docs/ncgen.md says of the reference's code: its C asks for no quantization
/// whatever the CDL says (`NC_NOQUANTIZE`), its C for a compound with a `char` array
/// field does not compile, nor does its Fortran for a scalar `byte`; its Java uses
/// netCDF-Java 4's `NetcdfFileWriteable` and takes the classic model only.
#[test]
fn the_reference_code_has_the_defects_the_docs_name() {
    let (Some(gcc), Some(gfortran)) = (program("gcc"), program("gfortran")) else {
        return;
    };
    let (Some(ncgen), Some(corpus)) = (reference("ncgen"), corpus()) else {
        return;
    };
    let dir = scratch();
    let c = run(Command::new(&ncgen)
        .args(["-l", "c", "-o", "x.nc"])
        .arg(test_data("ncgen_code/specials.cdl"))
        .current_dir(dir.path()));
    assert!(c.stdout.contains("NC_NOQUANTIZE"), "{}", c.stdout);
    assert!(!c.stdout.contains("NC_QUANTIZE_BITROUND"), "{}", c.stdout);
    let compile = |compiler: &Path, source: &str, text: &str, libs: &[&str]| {
        let path = dir.path().join(source);
        fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        run(Command::new(compiler)
            .args(["-w", "-I/usr/include", "-o", "prog"])
            .arg(&path)
            .args(libs)
            .current_dir(dir.path()))
    };
    let comp2 = run(Command::new(&ncgen)
        .args(["-l", "c", "-o", "x.nc"])
        .arg(corpus.join("ncdump_cdl_ref_tst_comp2.cdl")));
    assert!(comp2.stdout.contains("'?', ---,"), "{}", comp2.stdout);
    assert_ne!(
        compile(&gcc, "comp2.c", &comp2.stdout, &["-lnetcdf"]).code,
        Some(0)
    );
    let small = run(Command::new(&ncgen)
        .args(["-l", "f77", "-o", "x.nc"])
        .arg(corpus.join("ncdump_cdl_small.cdl")));
    assert!(small.stdout.contains("integer 't'_id;"), "{}", small.stdout);
    assert_ne!(
        compile(&gfortran, "small.f", &small.stdout, &["-lnetcdff"]).code,
        Some(0)
    );
    let java = run(Command::new(&ncgen)
        .args(["-l", "java", "-o", "x.nc"])
        .arg(corpus.join("ncdump_cdl_small.cdl")));
    assert!(
        java.stdout.contains("NetcdfFileWriteable"),
        "{}",
        java.stdout
    );
    let groups = run(Command::new(&ncgen)
        .args(["-l", "java", "-k", "nc4", "-o", "x.nc"])
        .arg(corpus.join("ncdump_ref_tst_group_data.cdl")));
    let said = format!("{}{}", groups.stdout, groups.stderr);
    assert!(said.contains("requires classic model"), "{said}");
}

/// Compiles `ncgen -l java` of `cdl` (with `-k kind`) against the netCDF-Java stub in
/// tests/data/ncgen_code/java-stub; netCDF-Java itself cannot be installed here, so this
/// checks the code against the API's signatures, not what it writes.
fn java_case(javac: &Path, cdl: &Path, kind: &str) -> Outcome {
    let dir = scratch();
    let code = Test::ours("ncgen")
        .args(["-l", "java", "-k", kind, "-o", "out.nc"])
        .arg(cdl)
        .run();
    if code.code == Some(1) && code.stderr.contains(" cannot write ") {
        return Outcome::CannotHold;
    }
    if code.code != Some(0) {
        // Our ncgen -b must reject it too.
        let binary = Test::ours("ncgen")
            .args(["-b", "-k", kind, "-o"])
            .arg(dir.path().join("b.nc"))
            .arg(cdl)
            .run();
        return if binary.code == Some(0) {
            Outcome::Fail(format!("ncgen -l java: {}", code.stderr))
        } else {
            Outcome::ReferenceRejects
        };
    }
    let source = dir.path().join("Writer.java");
    fs::write(&source, &code.stdout).unwrap_or_else(|e| panic!("{e}"));
    let built = run(Command::new(javac)
        .arg("-cp")
        .arg(test_data("ncgen_code/java-stub"))
        .args(["-d", "classes"])
        .arg(&source)
        .current_dir(dir.path()));
    if built.code == Some(0) {
        Outcome::Pass
    } else {
        Outcome::Fail(format!("javac: {}{}", built.stdout, built.stderr))
    }
}

fn java_corpus(names: &[&str], kinds: &[&str]) {
    let (Some(javac), Some(corpus)) = (program("javac"), corpus()) else {
        return;
    };
    let mut cdls: Vec<PathBuf> = if names.is_empty() {
        fs::read_dir(&corpus)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "cdl"))
                    .collect()
            })
            .unwrap_or_default()
    } else {
        names
            .iter()
            .map(|n| corpus.join(format!("{n}.cdl")))
            .collect()
    };
    cdls.sort();
    let mut results = Vec::new();
    for kind in kinds {
        for cdl in &cdls {
            let name = cdl.file_stem().map(|s| s.to_string_lossy().into_owned());
            results.push((
                kind.to_string(),
                name.unwrap_or_default(),
                java_case(&javac, cdl, kind),
            ));
        }
    }
    for kind in kinds {
        let of_kind = || results.iter().filter(|r| r.0 == *kind);
        eprintln!(
            "ncgen -l java -k {kind}: {} compile, {} the language cannot hold, {} ncgen rejects, {} fail",
            of_kind().filter(|r| r.2 == Outcome::Pass).count(),
            of_kind().filter(|r| r.2 == Outcome::CannotHold).count(),
            of_kind().filter(|r| r.2 == Outcome::ReferenceRejects).count(),
            of_kind().filter(|r| matches!(r.2, Outcome::Fail(_))).count(),
        );
    }
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(kind, name, o)| match o {
            Outcome::Fail(why) => Some(format!("-k {kind} {name}: {why}")),
            _ => None,
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        results.iter().any(|r| r.2 == Outcome::Pass),
        "nothing compiled"
    );
}

#[test]
fn java_classes_compile_against_the_netcdf_java_api() {
    java_corpus(REPRESENTATIVE, &["nc4", "nc3"]);
}

#[test]
#[ignore = "the whole corpus: minutes of javac; run with --ignored"]
fn java_classes_of_the_whole_corpus_compile() {
    java_corpus(&[], &["nc4", "nc3", "nc6", "nc5", "nc7"]);
}

/// Data in methods of at most 1000 values (a Java method holds 64 KiB of bytecode), and
/// what Java code cannot write refused.
#[test]
fn java_data_is_split_and_user_types_are_refused() {
    let Some(javac) = program("javac") else {
        return;
    };
    let dir = scratch();
    let values: Vec<String> = (0..2500).map(|i| i.to_string()).collect();
    let cdl = dir.path().join("big.cdl");
    let text = format!(
        "netcdf big {{\ndimensions:\n  x = 50 ;\n  y = 50 ;\nvariables:\n  double v(x, y) ;\n  string s ;\n    s:note = \"a\\nb\" ;\ndata:\n  v = {} ;\n  s = \"line\\nend\" ;\n}}\n",
        values.join(", ")
    );
    fs::write(&cdl, text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(java_case(&javac, &cdl, "nc4"), Outcome::Pass);
    let code = Test::ours("ncgen")
        .args(["-l", "java", "-k", "nc4"])
        .arg(&cdl)
        .run();
    assert_eq!(
        code.stdout.matches("writer.write(").count(),
        4,
        "{}",
        code.stdout
    );
    let refused = Test::ours("ncgen")
        .args(["-l", "java"])
        .arg(test_data("ncgen_code/specials.cdl"))
        .run();
    assert_eq!(refused.code, Some(1));
    assert!(
        refused.stderr.contains("Java code cannot write"),
        "{}",
        refused.stderr
    );
}

/// Names that would break the generated code if they reached it as they are: a dataset
/// name with `*/`, `\u000a` and `/` (in comments and docstrings), a group `a*` holding a
/// group `b` (`/* group /a*/b */`), and compound types named `div` and `off_t`, whose C
/// typedefs must not be the headers' `div_t` and `off_t`. The C program compiles, and C
/// and Python write the file ncgen writes.
#[test]
fn hostile_names_stay_out_of_the_code() {
    let cdl = test_data("ncgen_code/hostile_names.cdl");
    for lang in [Lang::C, Lang::Python] {
        let Some(tools) = lang.toolchain() else {
            return;
        };
        let (Some(_), Some(_)) = (reference("ncgen"), reference("ncdump")) else {
            return;
        };
        let dir = scratch();
        let outcome = check_case(lang, &tools, dir.path(), &cdl, Some("nc4"));
        assert!(matches!(outcome, Outcome::Pass), "{lang:?}: {outcome:?}");
    }
}

#[test]
fn a_c_program_using_a_plugin_filter_says_where_the_plugin_must_be() {
    // Before: `/* bzip2 */` only, and the program failed where HDF5 found no plugin
    // with nothing in it to say why.
    let dir = scratch();
    let cdl = dir.path().join("f.cdl");
    fs::write(
        &cdl,
        "netcdf f {\ndimensions:\n\tx = 4 ;\nvariables:\n\tfloat v(x) ;\n\t\tv:_Filter = \"307,9\" ;\n\
         \tfloat w(x) ;\n\t\tw:_DeflateLevel = 2 ;\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let done = Test::ours("ncgen").args(["-l", "c"]).arg(&cdl).run();
    ok("done", &done);
    let bzip2 = done
        .stdout
        .lines()
        .position(|l| l.contains("nc_def_var_filter(ncid, v_id, 307"))
        .unwrap_or_else(|| panic!("{}", done.stdout));
    let lines: Vec<&str> = done.stdout.lines().collect();
    assert!(
        lines[bzip2.saturating_sub(2)..bzip2]
            .iter()
            .any(|l| l.contains("bzip2: an HDF5 filter plugin; set HDF5_PLUGIN_PATH")),
        "{}",
        done.stdout
    );
    assert_eq!(
        done.stdout.matches("HDF5_PLUGIN_PATH").count(),
        1,
        "deflate is built into HDF5: {}",
        done.stdout
    );
}
