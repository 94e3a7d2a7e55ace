//! Every option of netCDF-C's three tools, run through ours.
//!
//! The options of the reference tools' usage text (read from `/usr/bin`, never listed
//! here) must all be known to ours, and where the reference succeeds with an option ours
//! must too. The options their usage leaves out are checked one by one against the
//! reference: ncdump `-K` (byte for byte, for every kind of input), `-d` and, from
//! netCDF-C 4.10.1's sources, `-XF`; nccopy `-x`; ncgen `-1`, `-d` and `-P`; the `-k`
//! aliases; and the CDL number forms of 4.10.1 (`10bu`). Inputs of a format nctools does
//! not know go to libnetcdf before being refused.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{ok, reference, run, scratch, test_data, Run, Test};

/// The reference tools, by the names our binaries share.
const TOOLS: [&str; 3] = ["ncdump", "ncgen", "nccopy"];

/// A CDL of tests/data/options.
fn cdl(name: &str) -> PathBuf {
    test_data(&format!("options/{name}.cdl"))
}

/// Builds `name`.cdl with the reference ncgen as `kind` into `dir`.
fn build(dir: &Path, name: &str, kind: &str) -> Option<PathBuf> {
    let ncgen = reference("ncgen")?;
    let out = dir.join(format!("{name}-{}.nc", kind.replace(' ', "_")));
    let made = run(Command::new(ncgen)
        .args(["-k", kind, "-o"])
        .arg(&out)
        .arg(cdl(name)));
    assert_eq!(
        made.code,
        Some(0),
        "reference ncgen -k {kind}: {}",
        made.stderr
    );
    Some(out)
}

/// The usage text of the reference `tool`, as a bad option makes it print it.
fn usage_text(tool: &Path) -> String {
    let refused = run(Command::new(tool).arg("-Q"));
    format!("{}{}", refused.stdout, refused.stderr)
}

/// The option letters a usage text names: `-x` after `[`, `|`, a blank or the start of
/// a line (so that `64-bit` or `netCDF-4` are no options), and each letter of `-[3|4|6|7]`.
fn option_letters(usage: &str) -> Vec<char> {
    let mut letters = Vec::new();
    let chars: Vec<char> = usage.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let starts_option =
            c == '-' && (i == 0 || matches!(chars[i - 1], '[' | '|' | ' ' | '\t' | '\n'));
        if !starts_option {
            continue;
        }
        match chars.get(i + 1) {
            Some('[') => {
                let group: String = chars[i + 2..].iter().take_while(|c| **c != ']').collect();
                letters.extend(
                    group
                        .split('|')
                        .filter_map(|s| s.chars().next().filter(|_| s.chars().count() == 1)),
                );
            }
            Some(&letter) if letter.is_ascii_alphanumeric() => letters.push(letter),
            _ => {}
        }
    }
    letters.sort_unstable();
    letters.dedup();
    letters
}

/// The languages of ncgen's usage (`[-l language=b|c|f77|java]`), or just `b`.
fn ncgen_languages(usage: &str) -> Vec<String> {
    let Some((_, after)) = usage.split_once("language=") else {
        return vec!["b".to_string()];
    };
    after
        .split([']', ' '])
        .next()
        .unwrap_or_default()
        .split('|')
        .map(str::to_string)
        .collect()
}

/// A sensible value for an option that takes one, for the inputs made here; `None` for
/// a flag.
fn value_for(tool: &str, letter: char) -> Option<&'static str> {
    Some(match (tool, letter) {
        ("ncdump", 'b' | 'f') => "c",
        ("ncdump", 'l') => "60",
        ("ncdump", 'n') => "renamed",
        ("ncdump", 'p' | 'd') => "4,9",
        ("ncdump" | "nccopy", 'v' | 'V') => "temp",
        ("ncdump" | "nccopy", 'g' | 'G') => "sub",
        ("ncdump", 'X') => "p",
        (_, 'L') => "0",
        ("nccopy" | "ncgen", 'k') => "nc4",
        ("nccopy", 'd') => "1",
        ("nccopy", 'c') => "lat/2",
        ("nccopy", 'm' | 'h') => "100000",
        ("nccopy", 'e') => "10",
        ("nccopy", 'F') => "temp,deflate,1",
        ("nccopy", 'M') => "100",
        ("ncgen", 'v') => "nc4",
        ("ncgen", 'D') => "1",
        ("ncgen", 'M') => "main",
        ("ncgen", 'o') => "out.nc",
        ("ncgen", 'N') => "renamed",
        ("ncgen", 'W' | 'B') => "1000",
        _ => return None,
    })
}

/// The argument lists to try for `letter` of `tool` (one per ncgen language for `-l`).
fn option_args(tool: &str, letter: char, languages: &[String]) -> Vec<Vec<String>> {
    let flag = format!("-{letter}");
    if tool == "ncgen" && letter == 'l' {
        return languages
            .iter()
            .map(|lang| vec![flag.clone(), lang.clone()])
            .collect();
    }
    match value_for(tool, letter) {
        Some(value) => vec![vec![flag, value.to_string()]],
        None => vec![vec![flag]],
    }
}

/// Whether ours may refuse `args` with a runtime message (exit 1) where the reference
/// succeeds: ncgen's code generation (`-c`, `-f`, `-l` but `b`), which is another
/// change's work.
fn code_generation(tool: &str, args: &[String]) -> bool {
    tool == "ncgen"
        && match args.first().map(String::as_str) {
            Some("-c" | "-f") => true,
            Some("-l") => args.get(1).is_some_and(|lang| lang != "b"),
            _ => false,
        }
}

/// What went wrong with one option, or `None`: ours rejected it as unknown, or failed
/// where the reference succeeded.
fn judge(tool: &str, args: &[String], ours: &Run, theirs: &Run) -> Option<String> {
    let unknown = [
        "unexpected argument",
        "unrecognized",
        "invalid option",
        "unknown option",
    ];
    if let Some(text) = unknown.iter().find(|t| ours.stderr.contains(*t)) {
        return Some(format!("rejected as unknown ({text:?}): {}", ours.stderr));
    }
    if theirs.code != Some(0) || ours.code == Some(0) {
        return None;
    }
    if code_generation(tool, args) && ours.code == Some(1) {
        return None;
    }
    Some(format!(
        "the reference succeeds, ours exits {:?}: {}",
        ours.code, ours.stderr
    ))
}

/// The runs of one option: the arguments with the inputs (`FILE` for ncdump, `IN OUT`
/// for nccopy, `-o out.nc CDL` for ncgen unless the option is `-o`).
fn full_args(tool: &str, args: &[String], input: &Path) -> Vec<String> {
    let mut all = args.to_vec();
    let input = input.display().to_string();
    match tool {
        "nccopy" => all.extend([input, "out.nc".to_string()]),
        "ncgen" if args[0] != "-o" => all.extend(["-o".to_string(), "out.nc".to_string(), input]),
        _ => all.push(input),
    }
    all
}

/// The Done-when test of every option: each option letter the reference tools' usage
/// text lists (parsed from it, not listed here) runs through ours with a sensible value,
/// on each input; none may be rejected as unknown, and where the reference succeeds ours
/// must too (ncgen's code generation may still be refused with a message, exit 1).
#[test]
fn every_option_of_the_reference_usage_is_known() {
    let dir = scratch();
    let Some(classic) = build(dir.path(), "classic", "classic") else {
        return;
    };
    let Some(grouped) = build(dir.path(), "grouped", "netCDF-4") else {
        return;
    };
    let mut failures = Vec::new();
    let mut runs = 0;
    for tool in TOOLS {
        let Some(theirs) = reference(tool) else {
            return;
        };
        let usage = usage_text(&theirs);
        let letters = option_letters(&usage);
        assert!(
            letters.len() >= 15,
            "{tool}: only {letters:?} parsed from its usage:\n{usage}"
        );
        let languages = ncgen_languages(&usage);
        eprintln!("{tool}: options {letters:?}, languages {languages:?}");
        let inputs = match tool {
            "ncgen" => vec![cdl("grouped")],
            _ => vec![classic.clone(), grouped.clone()],
        };
        for letter in letters {
            for args in option_args(tool, letter, &languages) {
                for input in &inputs {
                    let all = full_args(tool, &args, input);
                    let ours_dir = scratch();
                    let ours = Test::ours(tool)
                        .args(&all)
                        .current_dir(ours_dir.path())
                        .run();
                    let theirs_dir = scratch();
                    let reference = run(Command::new(&theirs)
                        .args(&all)
                        .current_dir(theirs_dir.path()));
                    runs += 1;
                    if let Some(why) = judge(tool, &args, &ours, &reference) {
                        failures.push(format!("{tool} {}: {why}", all.join(" ")));
                    }
                }
            }
        }
    }
    assert!(runs > 60, "only {runs} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn usage_letters_are_parsed_from_the_text() {
    let usage = "/usr/bin/nccopy [-k kind] [-[3|4|6|7]] [-[v|V] varlist] [-Ln] infile\n\
                 [-k kind] kinds: '64-bit offset', 'netCDF-4 classic model'\n\
                 ncdump [-c|-h] [[-b|-f] [c|f]] [-Xp] file";
    assert_eq!(
        option_letters(usage),
        ['3', '4', '6', '7', 'L', 'V', 'X', 'b', 'c', 'f', 'h', 'k', 'v']
    );
    assert_eq!(
        ncgen_languages("[-l language=b|c|f77|java] [-M <name>]"),
        ["b", "c", "f77", "java"]
    );
}

/// The text after the program name of a message (`PROGRAM: text`), for comparing
/// messages of programs run by different paths.
fn after_program(stderr: &str) -> &str {
    stderr.split_once(": ").map_or(stderr, |(_, rest)| rest)
}

fn reference_run(tool: &str, args: &[&str], file: &Path) -> Option<Run> {
    let program = reference(tool)?;
    Some(run(Command::new(program).args(args).arg(file)))
}

fn our_dump(args: &[&str], file: &Path) -> Run {
    Test::ours("ncdump").args(args).arg(file).run()
}

/// `ncdump -K` prints what netCDF-C 4.9.0's prints, byte for byte, for every kind of file
/// (with `-Xm` too, which adds NC_DISKLESS to the mode; `-k` wins over `-K`).
#[test]
fn extended_kind_is_the_reference_line() {
    let dir = scratch();
    for kind in [
        "classic",
        "64-bit offset",
        "cdf5",
        "netCDF-4",
        "netCDF-4 classic model",
    ] {
        let Some(file) = build(dir.path(), "classic", kind) else {
            return;
        };
        for args in [
            &["-K"][..],
            &["-K", "-Xm"],
            &["-k", "-K"],
            &["-K", "-h", "-v", "no"],
        ] {
            let Some(theirs) = reference_run("ncdump", args, &file) else {
                return;
            };
            let ours = our_dump(args, &file);
            assert_eq!(theirs.code, Some(0), "{kind} {args:?}: {}", theirs.stderr);
            assert_eq!(ours.code, Some(0), "{kind} {args:?}: {}", ours.stderr);
            assert_eq!(ours.stdout, theirs.stdout, "{kind} {args:?}");
        }
    }
}

/// netCDF-C's ncdump has no name for NCZarr in `-K` (4.9.0 to 4.10.1): on a Zarr store it
/// stops with `unrecognized extended format: 10`. Ours says the same, on a store given as
/// a path or as an NCZarr URL.
#[test]
fn extended_kind_of_a_zarr_store_is_the_reference_error() {
    let dir = scratch();
    let Some(fixed) = build(dir.path(), "fixed", "netCDF-4") else {
        return;
    };
    let store = dir.path().join("store.zarr");
    let copied = Test::ours("nccopy").arg(&fixed).arg(&store).run();
    ok("copied", &copied);
    // The reference 4.9.0 crashes reading NCZarr metadata (mode=nczarr), and on stores
    // with groups or unlimited dimensions; a plain Zarr store of fixed-size variables it
    // opens, and prints its -K error.
    let zarr_url = format!("file://{}#mode=zarr,file", store.display());
    let Some(theirs) = reference_run("ncdump", &["-K"], Path::new(&zarr_url)) else {
        return;
    };
    assert_eq!(theirs.code, Some(1), "{}", theirs.stderr);
    assert_eq!(
        after_program(&theirs.stderr),
        "unrecognized extended format: 10\n"
    );
    let nczarr_url = format!("file://{}#mode=nczarr,file", store.display());
    for input in [store.display().to_string(), nczarr_url] {
        let ours = our_dump(&["-K"], Path::new(&input));
        assert_eq!(ours.code, theirs.code, "{input}: {}", ours.stderr);
        assert_eq!(ours.stdout, theirs.stdout, "{input}");
        assert_eq!(after_program(&ours.stderr), after_program(&theirs.stderr));
        let kind = our_dump(&["-k"], Path::new(&input));
        assert_eq!(kind.stdout, "netCDF-4\n", "{input}: {}", kind.stderr);
    }
}

/// `-d`, the old form of `-p`: the same digits, but a variable's `C_format` attribute
/// still wins; with both, the last sets the digits and `-p`'s types keep overriding.
#[test]
fn old_precision_option_is_the_reference_one() {
    let dir = scratch();
    let Some(file) = build(dir.path(), "classic", "classic") else {
        return;
    };
    for args in [
        &["-d", "4"][..],
        &["-d", "4,9"],
        &["-d", ",9"],
        &["-p", "4", "-d", "9"],
        &["-d", "9", "-p", "4,3"],
        &["-p", ",9"],
    ] {
        let Some(theirs) = reference_run("ncdump", args, &file) else {
            return;
        };
        let ours = our_dump(args, &file);
        assert_eq!(theirs.code, Some(0), "{args:?}: {}", theirs.stderr);
        assert_eq!(ours.code, Some(0), "{args:?}: {}", ours.stderr);
        assert_eq!(ours.stdout, theirs.stdout, "{args:?}");
    }
    for (args, says) in [
        (
            &["-d", "0"],
            "unreasonable value for float significant digits: 0",
        ),
        (
            &["-d", "4,"],
            "unreasonable value for double significant digits: 0",
        ),
    ] {
        let Some(theirs) = reference_run("ncdump", args, &file) else {
            return;
        };
        assert!(theirs.stderr.contains(says), "{}", theirs.stderr);
        let ours = our_dump(args, &file);
        assert_eq!(ours.code, Some(2), "{args:?}: {}", ours.stderr);
        assert!(ours.stderr.contains(says), "{}", ours.stderr);
        assert!(ours.stdout.is_empty());
    }
}

/// The reference's CDL with the rule of netCDF-C 4.10.1's `-XF` applied (ncdump.c,
/// `pr_att`): the type of the variable before each variable's `_FillValue` attribute
/// whose type is not already printed (user-defined and string types always are).
fn with_fill_value_types(cdl: &str) -> String {
    let mut types: Vec<(String, String)> = Vec::new();
    let mut out = String::new();
    for line in cdl.split_inclusive('\n') {
        let trimmed = line.trim_start_matches(['\t', ' ']);
        let depth = line.len() - trimmed.len();
        if let Some((ty, rest)) = trimmed.split_once(' ') {
            if depth > 0 && !ty.is_empty() && rest.trim_end().ends_with(';') && !rest.contains(':')
            {
                let name = rest.split(['(', ' ']).next().unwrap_or_default();
                types.push((name.to_string(), ty.to_string()));
            }
        }
        let typed = trimmed.split_once(":_FillValue = ").and_then(|(var, _)| {
            types
                .iter()
                .rev()
                .find(|(name, _)| name == var)
                .map(|(_, ty)| ty.clone())
        });
        match typed {
            Some(ty) => {
                out.push_str(&line[..depth]);
                out.push_str(&format!("{ty} {trimmed}"));
            }
            None => out.push_str(line),
        }
    }
    out
}

/// `-XF` (netCDF-C 4.10.1; the reference here is 4.9.0, which lacks it): the reference's
/// output with the type printed before every variable's `_FillValue`, in every group; not
/// for global attributes, and NcML is unchanged.
#[test]
fn fill_value_types_follow_netcdf_c_4_10_1() {
    let dir = scratch();
    let Some(grouped) = build(dir.path(), "grouped", "netCDF-4") else {
        return;
    };
    let Some(classic) = build(dir.path(), "classic", "classic") else {
        return;
    };
    for file in [&grouped, &classic] {
        for (ours_args, their_args) in [
            (&["-XF"][..], &[][..]),
            (&["-Xf", "-Xp", "-h", "-s"], &["-h", "-s"]),
        ] {
            let Some(theirs) = reference_run("ncdump", their_args, file) else {
                return;
            };
            let ours = our_dump(ours_args, file);
            ok("ours", &ours);
            let expected = with_fill_value_types(&theirs.stdout);
            assert_ne!(
                expected,
                theirs.stdout,
                "no _FillValue in {}",
                file.display()
            );
            assert_eq!(ours.stdout, expected, "{ours_args:?} {}", file.display());
        }
    }
    assert!(our_dump(&["-XF"], &grouped)
        .stdout
        .contains("  \t\tushort level:_FillValue = 65535US ;\n"));
    let Some(ncml) = reference_run("ncdump", &["-x"], &classic) else {
        return;
    };
    assert_eq!(our_dump(&["-x", "-XF"], &classic).stdout, ncml.stdout);
}

/// The reference ncdump's dump of `file` without its first line (the dataset name).
fn reference_dump_body(file: &Path) -> Option<String> {
    let dumped = reference_run("ncdump", &["-s"], file)?;
    assert_eq!(
        dumped.code,
        Some(0),
        "{}: {}",
        file.display(),
        dumped.stderr
    );
    Some(
        dumped
            .stdout
            .split_once('\n')
            .map(|(_, b)| b.to_string())
            .unwrap_or_default(),
    )
}

/// nccopy `-x` (the reference's experimental per-variable chunk caches) copies what the
/// reference copies.
#[test]
fn nccopy_per_variable_caches_option() {
    let dir = scratch();
    let Some(grouped) = build(dir.path(), "grouped", "netCDF-4") else {
        return;
    };
    let (ours, theirs) = (dir.path().join("ours.nc"), dir.path().join("theirs.nc"));
    let copied = Test::ours("nccopy")
        .arg("-x")
        .arg(&grouped)
        .arg(&ours)
        .run();
    ok("copied", &copied);
    let Some(nccopy) = reference("nccopy") else {
        return;
    };
    let made = run(Command::new(nccopy).arg("-x").arg(&grouped).arg(&theirs));
    ok("made", &made);
    assert_eq!(reference_dump_body(&ours), reference_dump_body(&theirs));
}

/// ncgen `-1` (in the reference's option string, read by nothing), `-d` (debug output,
/// none at level 1) and `-P` (diskless with persistence; the reference 4.9.0 to 4.10.1
/// crashes on it, reading `-W`'s missing value): the file of a run without them.
#[test]
fn ncgen_options_outside_the_usage() {
    let dir = scratch();
    let Some(ncgen) = reference("ncgen") else {
        return;
    };
    let input = cdl("grouped");
    let plain = dir.path().join("plain.nc");
    let made = run(Command::new(&ncgen)
        .args(["-k", "nc4", "-o"])
        .arg(&plain)
        .arg(&input));
    ok("made", &made);
    let Some(expected) = reference_dump_body(&plain) else {
        return;
    };
    for option in ["-1", "-d", "-P"] {
        let ours = dir.path().join(format!("ours{option}.nc"));
        let generated = Test::ours("ncgen")
            .args([option, "-k", "nc4", "-o"])
            .arg(&ours)
            .arg(&input)
            .run();
        assert_eq!(generated.code, Some(0), "{option}: {}", generated.stderr);
        assert!(
            generated.stdout.is_empty(),
            "{option}: {}",
            generated.stdout
        );
        assert_eq!(
            reference_dump_body(&ours).as_ref(),
            Some(&expected),
            "{option}"
        );
        if option == "-P" {
            let theirs = dir.path().join("theirs-P.nc");
            let crashed = run(Command::new(&ncgen)
                .args(["-P", "-k", "nc4", "-o"])
                .arg(&theirs)
                .arg(&input));
            assert_eq!(
                crashed.signal,
                Some(11),
                "the reference's -P: {:?}",
                crashed.code
            );
        } else {
            let theirs = dir.path().join(format!("theirs{option}.nc"));
            let made = run(Command::new(&ncgen)
                .args([option, "-k", "nc4", "-o"])
                .arg(&theirs)
                .arg(&input));
            assert_eq!(made.code, Some(0), "{option}: {}", made.stderr);
            assert_eq!(reference_dump_body(&theirs).as_ref(), Some(&expected));
        }
    }
}

/// The `-k` names of netCDF-C's tables (ncgen's and nccopy's), with the format each
/// makes (what `ncdump -k` prints).
const KIND_NAMES: [(&str, &str); 27] = [
    ("classic", "classic"),
    ("nc3", "classic"),
    ("1", "classic"),
    ("64-bit offset", "64-bit offset"),
    ("nc6", "64-bit offset"),
    ("2", "64-bit offset"),
    ("64-bit-offset", "64-bit offset"),
    ("netCDF-4", "netCDF-4"),
    ("nc4", "netCDF-4"),
    ("3", "netCDF-4"),
    ("netCDF4", "netCDF-4"),
    ("hdf5", "netCDF-4"),
    ("enhanced", "netCDF-4"),
    ("netCDF-4 classic model", "netCDF-4 classic model"),
    ("nc7", "netCDF-4 classic model"),
    ("4", "netCDF-4 classic model"),
    ("netCDF-4-classic", "netCDF-4 classic model"),
    ("netCDF-4_classic", "netCDF-4 classic model"),
    ("netCDF4_classic", "netCDF-4 classic model"),
    ("hdf5-nc3", "netCDF-4 classic model"),
    ("enhanced-nc3", "netCDF-4 classic model"),
    ("5", "cdf5"),
    ("64-bit-data", "cdf5"),
    ("64-bit data", "cdf5"),
    ("nc5", "cdf5"),
    ("cdf5", "cdf5"),
    ("cdf-5", "cdf5"),
];

/// Runs `tool -k kind` (ours or the reference's program) on the classic inputs, writing
/// `out`; the format of `out` as the reference ncdump names it, or the failed run.
fn made_kind(
    program: Test,
    tool: &str,
    kind: &str,
    classic: &Path,
    out: &Path,
) -> Result<String, Run> {
    let program = program.args(["-k", kind]);
    let made = if tool == "ncgen" {
        program.arg("-o").arg(out).arg(cdl("classic")).run()
    } else {
        program.arg(classic).arg(out).run()
    };
    if made.code != Some(0) {
        return Err(made);
    }
    let dumped = reference_run("ncdump", &["-k"], out).map(|r| r.stdout);
    Ok(dumped.unwrap_or_default().trim_end().to_string())
}

/// Every `-k` name makes its format in both tools, in any case, as the reference makes
/// it; nccopy's table lacks `cdf-5` (the reference nccopy refuses it), which ours takes
/// in both tools, and the reference compares names exactly.
#[test]
fn kind_names_make_the_reference_formats() {
    let dir = scratch();
    let Some(classic) = build(dir.path(), "classic", "classic") else {
        return;
    };
    for tool in ["ncgen", "nccopy"] {
        let Some(program) = reference(tool) else {
            return;
        };
        for (name, format) in KIND_NAMES {
            let out = dir.path().join("ours.nc");
            for spelling in [name.to_string(), name.to_uppercase()] {
                let ours = made_kind(Test::ours(tool), tool, &spelling, &classic, &out);
                let ours =
                    ours.unwrap_or_else(|run| panic!("{tool} -k {spelling}: {}", run.stderr));
                assert_eq!(ours, format, "{tool} -k {spelling}");
            }
            let theirs_out = dir.path().join("theirs.nc");
            let theirs = made_kind(Test::program(&program), tool, name, &classic, &theirs_out);
            match theirs {
                Ok(theirs) => assert_eq!(theirs, format, "reference {tool} -k {name}"),
                Err(refused) => assert_eq!(
                    (tool, name),
                    ("nccopy", "cdf-5"),
                    "the reference refuses: {}",
                    refused.stderr
                ),
            }
        }
    }
}

/// netCDF-C 4.10.1's ncgen reads the `u` of an unsigned constant after the size letter
/// too (`10bu` for `10ub`); the reference here (4.9.0) has only the older spelling, so the
/// file ours makes from the new spelling must equal the reference's from the old.
#[test]
fn unsigned_suffix_after_the_size_letter() {
    let dir = scratch();
    let Some(ncgen) = reference("ncgen") else {
        return;
    };
    let text = |a: &str, b: &str, c: &str, d: &str| {
        format!(
            "netcdf n {{\nvariables:\n\tint v ;\n\t\tv:b = {a} ;\n\t\tv:s = {b} ;\n\t\t\
             v:l = {c} ;\n\t\tv:ll = {d} ;\ndata:\n v = 1 ;\n}}\n"
        )
    };
    let new = dir.path().join("new.cdl");
    let old = dir.path().join("old.cdl");
    let written = std::fs::write(&new, text("10bu", "300SU", "7lu", "5llu"))
        .and_then(|()| std::fs::write(&old, text("10ub", "300US", "7ul", "5ull")));
    written.unwrap_or_else(|e| panic!("{e}"));
    let (ours, theirs) = (dir.path().join("ours.nc"), dir.path().join("theirs.nc"));
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&ours)
        .arg(&new)
        .run();
    ok("made", &made);
    let reference_made = run(Command::new(ncgen)
        .args(["-k", "nc4", "-o"])
        .arg(&theirs)
        .arg(&old));
    ok("reference_made", &reference_made);
    let ours_dump = reference_dump_body(&ours).unwrap_or_default();
    assert!(ours_dump.contains("v:b = 10UB ;"), "{ours_dump}");
    assert_eq!(Some(ours_dump), reference_dump_body(&theirs));
}

/// An input of a format nctools does not recognise goes to libnetcdf before it is
/// refused. This libnetcdf is built without HDF4, so a file with HDF4's signature is
/// still refused: with our words and libnetcdf's reason, by both tools.
#[test]
fn unknown_formats_go_to_libnetcdf_first() {
    let dir = scratch();
    let file = dir.path().join("old.hdf");
    let mut bytes = b"\x0e\x03\x13\x01".to_vec();
    bytes.extend_from_slice(&[0u8; 60]);
    std::fs::write(&file, bytes).unwrap_or_else(|e| panic!("{e}"));
    let says = "old.hdf: not a netCDF file (unknown format: it starts with 0e 03 13 01 00 00 00 \
                00; netCDF files start with `CDF` or with HDF5's signature); libnetcdf cannot \
                read it either: NetCDF: ";
    let dumped = our_dump(&["-K"], &file);
    assert_eq!(dumped.code, Some(1), "{}", dumped.stderr);
    assert!(dumped.stderr.contains(says), "{}", dumped.stderr);
    let out = dir.path().join("out.nc");
    let copied = Test::ours("nccopy").arg(&file).arg(&out).run();
    assert_eq!(copied.code, Some(1), "{}", copied.stderr);
    assert!(copied.stderr.contains(says), "{}", copied.stderr);
    assert!(!out.exists());
    let Some(theirs) = reference_run("ncdump", &["-K"], &file) else {
        return;
    };
    assert_eq!(
        theirs.code,
        Some(1),
        "the reference's libnetcdf refuses it too"
    );
}

/// An option given twice is read as getopt reads it, the last value winning (a flag twice
/// is the flag), as the reference does, instead of being refused.
#[test]
fn repeated_options_take_the_last_value() {
    let dir = scratch();
    let Some(classic) = build(dir.path(), "classic", "classic") else {
        return;
    };
    let args = ["-h", "-p", "3", "-h", "-p", "4,9"];
    let Some(theirs) = reference_run("ncdump", &args, &classic) else {
        return;
    };
    let ours = our_dump(&args, &classic);
    ok("ours", &ours);
    assert_eq!(ours.stdout, theirs.stdout);
    let (ours, theirs) = (dir.path().join("ours.nc"), dir.path().join("theirs.nc"));
    let copied = Test::ours("nccopy")
        .args(["-k", "nc3", "-d", "5", "-k", "nc4", "-d", "1"])
        .arg(&classic)
        .arg(&ours)
        .run();
    ok("copied", &copied);
    let Some(nccopy) = reference("nccopy") else {
        return;
    };
    let made = run(Command::new(nccopy)
        .args(["-k", "nc3", "-d", "5", "-k", "nc4", "-d", "1"])
        .arg(&classic)
        .arg(&theirs));
    ok("made", &made);
    let ours_dump = reference_dump_body(&ours).unwrap_or_default();
    assert!(ours_dump.contains("_DeflateLevel = 1 ;"), "{ours_dump}");
    assert_eq!(Some(ours_dump), reference_dump_body(&theirs));
    let generated = Test::ours("ncgen")
        .args(["-x", "-x", "-k", "nc3", "-k", "nc4", "-o"])
        .arg(dir.path().join("gen.nc"))
        .arg(cdl("classic"))
        .run();
    ok("generated", &generated);
    let kind = reference_run("ncdump", &["-k"], &dir.path().join("gen.nc")).map(|r| r.stdout);
    assert_eq!(kind.as_deref(), Some("netCDF-4\n"));
}
