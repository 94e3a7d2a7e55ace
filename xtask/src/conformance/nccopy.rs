//! The nccopy mode: the reference nccopy and ours copy every input (the ncdump mode's
//! files) with no option and with `-k nc4 -d 1 -s`; the reference ncdump of both copies
//! (no option, -hs) must be identical; where the reference fails, ours must fail too and
//! leave nothing, or (with -d, -s, -F) copy the input whole; `known_differences` excuses
//! listed cases.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::known::{self, Known};
use super::ncdump::{
    cached_dump, crash_desc, label, opt_display, rc_desc, ref_dump_crashed, reference, run_ncdump,
    status, OUTPUT_CAP, TIMEOUT as NCDUMP_TIMEOUT,
};
use super::text::{diff_lines, listing, unified_diff, Listed};
use super::text::{excerpt, first_difference, lines};
use super::{gen, newer_than, show_path, Ctx};
use crate::runner::{self, Ended, Spec};

/// Kinds of inputs, in the bash script's order.
const KINDS: [&str; 4] = ["nc4", "nc3", "nc6", "nc5"];
/// nccopy's option sets.
const OPT_SETS: [&str; 2] = ["", "-k nc4 -d 1 -s"];
/// The reference ncdump's option sets on both copies.
const DUMP_OPT_SETS: [&str; 2] = ["", "-hs"];
/// Each nccopy's time-out.
const TIMEOUT: Duration = Duration::from_secs(120);
/// Cap on the file each nccopy writes (8 GiB).
const FILE_CAP: u64 = 8 << 30;
/// Largest input copied, in file size or declared data (1 GiB).
pub const MAX_INPUT: u64 = 1 << 30;

/// The file-name label of an nccopy option set: none, knc4-d1-s.
fn copy_label(opts: &str) -> String {
    if opts.is_empty() {
        return "none".to_string();
    }
    let mut out = String::new();
    for w in opts.split_whitespace() {
        if let Some(o) = w.strip_prefix('-') {
            if !out.is_empty() {
                out.push('-');
            }
            out.push_str(o);
        } else {
            out.push_str(w);
        }
    }
    out.replace('/', "_")
}

/// The size of the data the variables of an `ncdump -h` declare, in bytes (as the bash
/// script's awk program reckons it).
pub fn declared_bytes(header: &[u8]) -> f64 {
    fn num(s: &str) -> f64 {
        let t = s.trim_start();
        let end = t
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+')) || c == '.'))
            .map_or(t.len(), |(i, _)| i);
        t[..end].parse().unwrap_or(0.0)
    }
    let size = |t: &str| -> f64 {
        match t {
            "byte" | "char" | "ubyte" => 1.0,
            "short" | "ushort" => 2.0,
            "int" | "uint" | "float" => 4.0,
            "double" | "int64" | "uint64" => 8.0,
            _ => 8.0,
        }
    };
    let mut dims: BTreeMap<String, f64> = BTreeMap::new();
    let mut sect = "";
    let mut total = 0.0;
    for raw in lines(header) {
        let line = String::from_utf8_lossy(raw);
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed == "dimensions:" {
            sect = "d";
            continue;
        }
        if trimmed == "variables:" {
            sect = "v";
            continue;
        }
        if [
            "types:",
            "data:",
            "group: ",
            "// global attributes:",
            "// group attributes:",
        ]
        .iter()
        .any(|p| trimmed.starts_with(p))
        {
            sect = "";
            continue;
        }
        if sect == "d" {
            if let Some(at) = trimmed.find(" = ") {
                let dname = &trimmed[..at];
                let n = if trimmed.contains("UNLIMITED") {
                    let after = trimmed.rsplit_once('(').map_or(trimmed, |(_, r)| r);
                    after.split(" currently").next().unwrap_or("")
                } else {
                    let after = trimmed.rsplit_once(" = ").map_or(trimmed, |(_, r)| r);
                    after.split(" ;").next().unwrap_or("")
                };
                dims.insert(dname.to_string(), num(n));
            }
        } else if sect == "v" && is_variable_line(&line) {
            let ty = trimmed.split(' ').next().unwrap_or("");
            let mut e = size(ty);
            if let Some(shape) = trimmed.strip_suffix(") ;") {
                let shape = shape.split_once('(').map_or("", |(_, r)| r);
                for d in shape.split(", ") {
                    e *= dims.get(d).copied().unwrap_or(0.0);
                }
            }
            total += e;
        }
    }
    total
}

/// Whether a line of the variables section declares a variable: indented, no colon,
/// a first word followed by a space, and ending in " ;".
fn is_variable_line(line: &str) -> bool {
    let rest = line.trim_start_matches([' ', '\t']);
    if rest.len() == line.len() || line.contains(':') {
        return false;
    }
    let Some(sp) = rest.find([' ', '\t']) else {
        return false;
    };
    sp > 0 && rest.as_bytes()[sp] == b' ' && rest[sp + 1..].ends_with(" ;")
}

/// Whether KIND/NAME.nc is over [`MAX_INPUT`], in file size or declared data; and that size.
pub fn input_too_large(ctx: &Ctx, kind: &str, name: &str) -> (bool, u64) {
    let nc = ctx.out.join(kind).join(format!("{name}.nc"));
    let bytes = nc.metadata().map(|m| m.len()).unwrap_or(0);
    let spec = Spec::new(
        ctx.ref_bin.join("ncdump"),
        ["-h".to_string(), format!("{name}.nc")],
    )
    .cwd(ctx.out.join(kind))
    .timeout(NCDUMP_TIMEOUT)
    .keep_stdout();
    let data = runner::run(&spec).map_or(0.0, |r| declared_bytes(&r.stdout));
    let size = if data > bytes as f64 {
        data as u64
    } else {
        bytes
    };
    (size > MAX_INPUT, size)
}

/// Where the copies of one kind and option set go.
fn copy_dir(ctx: &Ctx, kind: &str, opts: &str) -> PathBuf {
    ctx.out.join("nccopy").join(kind).join(copy_label(opts))
}

/// Runs nccopy `bin` with `opts` on `input` into NAME.nc in a private empty directory,
/// then leaves in `dir`: NAME.nc (on success), NAME.stderr, NAME.leftover (anything else
/// left behind) and NAME.rc (written last); cached until older than the input, the
/// program or this program. A time-out leaves NAME.timedout; an abnormal end of the
/// reference (not exit 0, 1 or 2) NAME.abnormal.
fn run_nccopy(
    ctx: &Ctx,
    bin: &Path,
    opts: &str,
    input: &Path,
    dir: &Path,
    name: &str,
) -> Result<()> {
    let with = |ext: &str| dir.join(format!("{name}.{ext}"));
    let (nc, rcf, tmo, abn) = (with("nc"), with("rc"), with("timedout"), with("abnormal"));
    if newer_than(&rcf, &[input, bin, &ctx.exe]) {
        return Ok(());
    }
    for f in [&nc, &rcf, &tmo, &abn, &with("stderr"), &with("leftover")] {
        let _ = fs::remove_file(f);
    }
    fs::create_dir_all(dir)?;
    let tmp = super::scratch(ctx, "nccopy.")?;
    let out_dir = tmp.path().join("out");
    fs::create_dir(&out_dir)?;
    let mut args: Vec<String> = opts.split_whitespace().map(str::to_string).collect();
    args.push(input.display().to_string());
    args.push(format!("{name}.nc"));
    let spec = Spec::new(bin, args)
        .cwd(&out_dir)
        .timeout(TIMEOUT)
        .keep_stdout();
    let run = runner::run(&spec)?;
    let mut output = run.stderr.clone().into_bytes();
    output.extend_from_slice(&run.stdout);
    if run.ended == Ended::TimedOut {
        fs::write(
            &tmo,
            format!("timed out after {}s (exit 124)\n", TIMEOUT.as_secs()),
        )?;
        return Ok(());
    }
    let rc = status(&run);
    let is_ref = bin == ctx.ref_bin.join("nccopy");
    if is_ref && !(0..=2).contains(&rc) {
        let mut text = if rc > 128 {
            format!(
                "exit {rc} (signal {} ({}))\n",
                rc - 128,
                runner::signal_name(rc - 128)
            )
        } else {
            format!("exit {rc}\n")
        };
        for l in String::from_utf8_lossy(&output).lines().take(10) {
            text.push_str(l);
            text.push('\n');
        }
        fs::write(&abn, text)?;
        return Ok(());
    }
    let made = out_dir.join(format!("{name}.nc"));
    if rc == 0 && made.is_file() {
        fs::rename(&made, &nc).with_context(|| format!("cannot move to {}", nc.display()))?;
    }
    let mut left: Vec<String> = Vec::new();
    for e in fs::read_dir(&out_dir)? {
        let e = e?;
        let size = e.metadata().map(|m| m.len()).unwrap_or(0);
        left.push(format!(
            "{} ({size} bytes)",
            e.file_name().to_string_lossy()
        ));
    }
    left.sort();
    if !left.is_empty() {
        fs::write(with("leftover"), format!("{}\n", left.join("\n")))?;
    }
    fs::write(with("stderr"), output)?;
    let part = with("rc.part");
    fs::write(&part, format!("{rc}\n"))?;
    fs::rename(&part, &rcf)?;
    Ok(())
}

/// Both nccopys on KIND/NAME.nc with every option set (an input too large: none, and
/// earlier copies removed).
fn run_worker(ctx: &Ctx, kind: &str, name: &str) -> Result<()> {
    let input = ctx.out.join(kind).join(format!("{name}.nc"));
    if input_too_large(ctx, kind, name).0 {
        for opts in OPT_SETS {
            let dir = copy_dir(ctx, kind, opts);
            for side in ["ref", "ours"] {
                let d = dir.join(side);
                if let Ok(entries) = fs::read_dir(&d) {
                    for e in entries.flatten() {
                        let f = e.file_name().to_string_lossy().into_owned();
                        if f.starts_with(&format!("{name}.")) {
                            let _ = fs::remove_file(e.path());
                        }
                    }
                }
            }
        }
        return Ok(());
    }
    for opts in OPT_SETS {
        let dir = copy_dir(ctx, kind, opts);
        run_nccopy(
            ctx,
            &ctx.ref_bin.join("nccopy"),
            opts,
            &input,
            &dir.join("ref"),
            name,
        )?;
        run_nccopy(
            ctx,
            &ctx.ours_bin.join("nccopy"),
            opts,
            &input,
            &dir.join("ours"),
            name,
        )?;
    }
    Ok(())
}

/// The status in DIR/NAME.rc, or None (timed out, or abnormal).
fn read_rc(dir: &Path, name: &str) -> Option<i32> {
    fs::read_to_string(dir.join(format!("{name}.rc")))
        .ok()
        .and_then(|s| s.trim().parse().ok())
}

/// The first non-empty line of a file, as an excerpt.
fn first_line(path: &Path) -> String {
    let text = fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    excerpt(text.lines().find(|l| !l.trim().is_empty()).unwrap_or(""))
}

/// What the nccopy run left in `dir` did: "exit N", "timed out after Ns", with ": " and
/// the first line of its standard error when it failed.
fn outcome(dir: &Path, name: &str) -> String {
    let abn = dir.join(format!("{name}.abnormal"));
    if abn.is_file() {
        let text = fs::read_to_string(&abn).unwrap_or_default();
        return format!("failed abnormally: {}", text.lines().next().unwrap_or(""));
    }
    let Some(rc) = read_rc(dir, name) else {
        return format!("timed out after {}s", TIMEOUT.as_secs());
    };
    let mut desc = match rc {
        0 => "exit 0".to_string(),
        153 => format!("exit 153 (wrote over {} GiB)", FILE_CAP >> 30),
        rc if rc > 128 => format!("exit {rc} (signal {})", rc - 128),
        rc => format!("exit {rc}"),
    };
    if rc != 0 {
        let line = first_line(&dir.join(format!("{name}.stderr")));
        desc.push_str(": ");
        desc.push_str(if line.is_empty() { "no message" } else { &line });
    }
    desc
}

/// The first 50 lines of `diff -u` between two byte strings.
fn unified(a: &[u8], b: &[u8], la: &str, lb: &str) -> String {
    let Ok(ta) = tempfile::NamedTempFile::new() else {
        return String::new();
    };
    if fs::write(ta.path(), a).is_err() {
        return String::new();
    }
    unified_diff(ta.path(), b, la, lb, NCDUMP_TIMEOUT)
}

/// A whole dump: its lines, the last left out when `cut` (a dump cut by the output cap
/// ends in a partial line).
fn whole_dump(out: &[u8], cut: bool) -> Vec<u8> {
    let mut l = lines(out);
    if cut {
        l.pop();
    }
    let mut v = Vec::new();
    for x in l {
        v.extend_from_slice(x);
        v.push(b'\n');
    }
    v
}

/// One result.
#[derive(Debug, Clone)]
struct Res {
    kind: String,
    name: String,
    opts: &'static str,
    status: &'static str,
    detail: String,
}

/// Judges the runs of [`run_worker`] on KIND/NAME.nc, for every option set.
fn compare(ctx: &Ctx, known: &[Known], kind: &str, name: &str) -> Result<Vec<Res>> {
    let refdump = ctx.ref_bin.join("ncdump");
    let oursbin = ctx.ours_bin.join("nccopy");
    let res = |opts, status, detail: String| Res {
        kind: kind.to_string(),
        name: name.to_string(),
        opts,
        status,
        detail,
    };
    let (too_large, size) = input_too_large(ctx, kind, name);
    if too_large {
        return Ok(OPT_SETS
            .iter()
            .map(|o| {
                res(
                    *o,
                    "skipped",
                    format!(
                        "input of {} MB (file or data), over {} MiB",
                        size / 1_000_000,
                        MAX_INPUT >> 20
                    ),
                )
            })
            .collect());
    }
    let input = ctx.out.join(kind).join(format!("{name}.nc"));
    let mut results = Vec::new();
    for opts in OPT_SETS {
        let l = copy_label(opts);
        let dir = copy_dir(ctx, kind, opts);
        let (refdir, oursdir, dumpdir) = (dir.join("ref"), dir.join("ours"), dir.join("dump"));
        fs::create_dir_all(&dumpdir)?;
        let diff = ctx
            .out
            .join("report/nccopy")
            .join(kind)
            .join(format!("{name}.{l}.diff"));
        let kd = known
            .iter()
            .find(|k| (k.name == name || k.name == format!("{kind}/{name}")) && k.opts == opts);
        let refrc = read_rc(&refdir, name);
        let oursrc = read_rc(&oursdir, name);
        let mut refout = outcome(&refdir, name);
        let oursout = outcome(&oursdir, name);
        let errf = oursdir.join(format!("{name}.stderr"));
        let leftf = oursdir.join(format!("{name}.leftover"));
        let err_text = String::from_utf8_lossy(&fs::read(&errf).unwrap_or_default()).into_owned();
        let crash = match oursrc {
            None => format!("timed out after {}s", TIMEOUT.as_secs()),
            Some(rc) => crash_desc(rc, &err_text, None),
        };
        let report_head = |refout: &str| {
            let opt_prefix = if opts.is_empty() {
                String::new()
            } else {
                format!("{opts} ")
            };
            let mut t = format!(
                "# {kind}/{name}.nc copied by each nccopy {}, dumped by the reference ncdump\n\
                 # ref:  {} {opt_prefix}{} {name}.nc -> {refout}\n\
                 # ours: {} {opt_prefix}{} {name}.nc -> {oursout}\n",
                opt_display(opts),
                ctx.ref_bin.join("nccopy").display(),
                input.display(),
                oursbin.display(),
                input.display()
            );
            if !crash.is_empty() {
                t.push_str(&format!("# ours crashed: {crash}\n"));
            }
            for line in fs::read_to_string(&leftf).unwrap_or_default().lines() {
                t.push_str(&format!("# ours left: {line}\n"));
            }
            for line in err_text.lines().take(10) {
                t.push_str(&format!("# ours stderr: {line}\n"));
            }
            if let Some(k) = kd {
                t.push_str(&format!(
                    "# known_differences lists this case (DECISIONS {}: {}); it applies only when ours\n\
                     # succeeds and the dumps differ exactly as the entry says\n",
                    k.decision, k.reason
                ));
            }
            t
        };
        if !crash.is_empty() {
            crate::report::write_file(&diff, &report_head(&refout))?;
            results.push(res(
                opts,
                "crashed",
                format!("ours crashed: {crash}; reference {refout}"),
            ));
            continue;
        }
        let Some(refrc) = refrc else {
            results.push(res(
                opts,
                "varies",
                format!("the reference nccopy {refout}"),
            ));
            continue;
        };
        let oursrc = oursrc.unwrap_or(-1);
        let ours_nc = oursdir.join(format!("{name}.nc"));
        let leftover = fs::read_to_string(&leftf).unwrap_or_default();
        let leftover_list = leftover.lines().collect::<Vec<_>>().join(",");

        if refrc != 0 || !refdir.join(format!("{name}.nc")).is_file() {
            // The reference fails: ours must fail too, leaving no file; or, with -d, -s or
            // -F, succeed with the input's whole dump.
            if refrc == 0 {
                refout = format!("exit 0 but wrote no {name}.nc");
            }
            let mut status = "accepted";
            let mut why = String::new();
            let mut detail = String::new();
            let mut wrote = false;
            if !leftover.is_empty() {
                why = format!("ours {oursout}, but leaves {leftover_list}");
            } else if oursrc != 0 {
                status = "rejected";
                detail = format!("ours {oursout}");
            } else if !ours_nc.is_file() {
                why = format!("ours exits 0 but writes no {name}.nc");
            } else if format!(" {opts} ").contains(" -d")
                || format!(" {opts} ").contains(" -s")
                || format!(" {opts} ").contains(" -F")
            {
                let input_dump = reference(ctx, kind, name, "", false)?;
                if let Some(v) = &input_dump.varies {
                    results.push(res(
                        opts,
                        "rvaries",
                        format!(
                            "reference nccopy {refout}; its ncdump of the input varies: {}",
                            v.lines().next().unwrap_or("")
                        ),
                    ));
                    continue;
                }
                let dump = run_ncdump(&refdump, "", &oursdir, name)?;
                let (rrc, drc) = (input_dump.rc, dump.rc);
                let cut = rrc == 153 && drc == 153;
                let din = whole_dump(&input_dump.out, cut);
                let dours = whole_dump(&dump.out, cut);
                if rrc == drc && !ref_dump_crashed(rrc) && !din.is_empty() && din == dours {
                    status = "refails";
                    detail = format!("reference {refout}");
                } else {
                    let (refdesc, oursdesc) = (rc_desc(rrc), rc_desc(drc));
                    let d = if din == dours {
                        format!("same dump, ncdump exit status input={refdesc} ours={oursdesc}")
                    } else {
                        format!("dump {}", first_difference(&din, &dours, "input", "ours"))
                    };
                    why = format!("ours exits 0 but its copy is not the input: {d}");
                    let text = format!(
                        "{}# the reference fails, so ours must copy the input as it is: the reference ncdump\n\
                         # of the input -> exit {refdesc}, of ours -> exit {oursdesc}:\n{}",
                        report_head(&refout),
                        unified(
                            &din,
                            &dours,
                            &format!("input/{kind}/{name}"),
                            &format!("ours/{kind}/{l}/{name}")
                        )
                    );
                    crate::report::write_file(&diff, &text)?;
                    wrote = true;
                }
            } else {
                why = format!("ours exits 0 and writes {name}.nc");
            }
            if status == "accepted" {
                detail = format!("{why}; reference {refout}");
                if !wrote {
                    crate::report::write_file(&diff, &report_head(&refout))?;
                }
            }
            results.push(res(opts, status, detail));
            continue;
        }

        // The reference succeeds: ours must succeed too, leaving only NAME.nc.
        let detail = if oursrc != 0 {
            format!("ours rejected: {oursout}")
        } else if !ours_nc.is_file() {
            format!("ours exits 0 but writes no {name}.nc")
        } else if !leftover.is_empty() {
            format!("ours leaves {leftover_list} beside {name}.nc")
        } else {
            String::new()
        };
        if !detail.is_empty() {
            crate::report::write_file(&diff, &report_head(&refout))?;
            results.push(res(opts, "differ", detail));
            continue;
        }
        let mut status = "same";
        let mut detail = String::new();
        let mut varies_detail = String::new();
        let mut sig = String::new();
        let mut report = String::new();
        for dopts in DUMP_OPT_SETS {
            let dl = label(dopts);
            let base = refdir.join(format!("{name}.{dl}"));
            let expected = cached_dump(ctx, &refdir, name, dopts, &base, false)?;
            if let Some(v) = &expected.varies {
                if varies_detail.is_empty() {
                    varies_detail = format!(
                        "ncdump {}: {}",
                        opt_display(dopts),
                        v.lines().next().unwrap_or("")
                    );
                }
                continue;
            }
            let rrc = expected.rc;
            if ref_dump_crashed(rrc) {
                if varies_detail.is_empty() {
                    varies_detail = format!(
                        "ncdump {}: the reference ncdump crashes on the reference's copy (exit {})",
                        opt_display(dopts),
                        rc_desc(rrc)
                    );
                }
                continue;
            }
            let dump = run_ncdump(&refdump, dopts, &oursdir, name)?;
            let drc = dump.rc;
            if rrc == drc && expected.out == dump.out {
                continue;
            }
            if dopts.is_empty() && reference(ctx, kind, name, "", false)?.varies.is_some() {
                if varies_detail.is_empty() {
                    varies_detail =
                        "ncdump: the reference ncdump of the input varies between runs".to_string();
                }
                continue;
            }
            let (refdesc, oursdesc) = (rc_desc(rrc), rc_desc(drc));
            sig.push_str(&format!("ncdump {}:\n", opt_display(dopts)));
            if rrc != drc {
                sig.push_str(&format!("exit ref={rrc} ours={drc}\n"));
            }
            sig.push_str(&diff_lines(&expected.out_path, &dump.out, NCDUMP_TIMEOUT));
            let mut d = if expected.out == dump.out {
                format!("same output, exit status ref={refdesc} ours={oursdesc}")
            } else {
                let f = first_difference(&expected.out, &dump.out, "ref", "ours");
                if rrc != drc {
                    format!("{f}; exit ref={refdesc} ours={oursdesc}")
                } else {
                    f
                }
            };
            let again = run_ncdump(&refdump, dopts, &oursdir, name)?;
            if again.out != dump.out {
                d.push_str("; the dump of ours varies between runs");
            }
            if status == "same" {
                status = "differ";
                detail = format!("ncdump {}: {d}", opt_display(dopts));
                report = report_head(&refout);
            }
            report.push_str(&format!(
                "# ncdump {}: ref -> exit {refdesc}, ours -> exit {oursdesc}\n",
                opt_display(dopts)
            ));
            for line in dump.err.lines().take(3) {
                report.push_str(&format!("# ncdump stderr on ours: {line}\n"));
            }
            report.push_str(&unified(
                &expected.out,
                &dump.out,
                &format!("ref/{kind}/{l}/{name}.{dl}"),
                &format!("ours/{kind}/{l}/{name}.{dl}"),
            ));
        }
        if status == "differ" {
            if let Some(k) = kd {
                if sig.trim_end_matches('\n') == k.expected {
                    status = "expected";
                    detail = format!(
                        "expected difference (DECISIONS {}): {}; {detail}",
                        k.decision, k.reason
                    );
                } else {
                    detail = format!(
                        "{detail}; not the differences known_differences expects (DECISIONS {}), see the report",
                        k.decision
                    );
                    report.push_str(
                        "# these differences, as known_differences spells them (the entry expects others):\n",
                    );
                    for line in sig.lines() {
                        report.push_str(&format!("#| {line}\n"));
                    }
                }
            }
            crate::report::write_file(&diff, &report)?;
        } else if status == "same" && !varies_detail.is_empty() {
            status = "varies";
            detail = varies_detail;
        }
        results.push(res(opts, status, detail));
    }
    Ok(results)
}

/// The nccopy mode; returns the exit status.
pub fn mode(ctx: &Ctx) -> Result<i32> {
    let start = Instant::now();
    let known = known::KNOWN;
    let top = ctx.out.join("nccopy");
    fs::create_dir_all(&top)?;
    let plugin = std::env::var("HDF5_PLUGIN_PATH").unwrap_or_else(|_| "<unset>".to_string());
    let ref_key = format!(
        "ref={} HDF5_PLUGIN_PATH={plugin} timeout={} cap={} dump-timeout={} dump-cap={} runs=2\n",
        ctx.ref_bin.display(),
        TIMEOUT.as_secs(),
        FILE_CAP >> 10,
        NCDUMP_TIMEOUT.as_secs(),
        OUTPUT_CAP >> 10
    );
    let ours_key = format!(
        "ours={} HDF5_PLUGIN_PATH={plugin}\n",
        ctx.ours_bin.display()
    );
    for (file, key, side) in [
        ("ref.key", &ref_key, "ref"),
        ("ours.key", &ours_key, "ours"),
    ] {
        let path = top.join(file);
        if fs::read_to_string(&path).ok().as_deref() != Some(key.as_str()) {
            for kind in KINDS {
                for opts in OPT_SETS {
                    let d = copy_dir(ctx, kind, opts).join(side);
                    if d.exists() {
                        fs::remove_dir_all(&d)?;
                    }
                }
            }
            fs::write(&path, key)?;
        }
    }
    let report = ctx.out.join("report/nccopy");
    if report.exists() {
        fs::remove_dir_all(&report)?;
    }
    for kind in KINDS {
        for opts in OPT_SETS {
            let d = copy_dir(ctx, kind, opts).join("dump");
            if d.exists() {
                fs::remove_dir_all(&d)?;
            }
        }
        fs::create_dir_all(ctx.out.join(kind))?;
        fs::create_dir_all(report.join(kind))?;
    }
    let tmp = ctx.out.join("tmp");
    fs::create_dir_all(&tmp)?;
    let banner = format!(
        "conformance nccopy: ours {} vs reference {}, both copies dumped by {}",
        ctx.ours_bin.join("nccopy").display(),
        ctx.ref_bin.join("nccopy").display(),
        ctx.ref_bin.join("ncdump").display()
    );
    let generated = gen::announce(ctx, &banner, &KINDS, "inputs (reference ncgen accepts):");
    let list = &generated.accepted;
    let _ = crate::limits::set_file_cap(FILE_CAP);
    let ran = crate::parallel::map(list, ctx.jobs, |(k, n)| run_worker(ctx, k, n), |_, _| {});
    for ((k, n), r) in list.iter().zip(ran) {
        if let Err(e) = r {
            eprintln!("conformance: nccopy worker {k} {n} failed: {e:#}");
        }
    }
    for (k, n) in list {
        let retry = OPT_SETS.iter().any(|o| {
            let d = copy_dir(ctx, k, o);
            d.join("ref").join(format!("{n}.timedout")).is_file()
                || d.join("ref").join(format!("{n}.abnormal")).is_file()
                || d.join("ours").join(format!("{n}.timedout")).is_file()
        });
        if retry {
            if let Err(e) = run_worker(ctx, k, n) {
                eprintln!("conformance: nccopy worker failed: {e:#}");
            }
        }
    }
    let judged = crate::parallel::map(
        list,
        ctx.jobs,
        |(k, n)| compare(ctx, known, k, n),
        |_, _| {},
    );
    let mut results = Vec::new();
    for ((k, n), r) in list.iter().zip(judged) {
        match r {
            Ok(r) => results.extend(r),
            Err(e) => eprintln!("conformance: comparison worker {k} {n} failed: {e:#}"),
        }
    }

    // Summary.
    let mut n: BTreeMap<(String, String, &str), usize> = BTreeMap::new();
    for r in &results {
        *n.entry((r.kind.clone(), copy_label(r.opts), r.status))
            .or_default() += 1;
        *n.entry(("all".to_string(), "all".to_string(), r.status))
            .or_default() += 1;
    }
    let count = |k: &str, l: &str, statuses: &[&str]| -> usize {
        statuses
            .iter()
            .map(|s| {
                n.get(&(k.to_string(), l.to_string(), *s))
                    .copied()
                    .unwrap_or(0)
            })
            .sum()
    };
    let counts_line = |k: &str, l: &str| -> String {
        let same = count(k, l, &["same"]);
        let total = count(k, l, &["same", "differ", "varies", "expected"]);
        let nvaries = count(k, l, &["varies", "rvaries"]);
        let nexp = count(k, l, &["expected"]);
        let rej = count(k, l, &["rejected", "refails", "accepted", "rvaries"]);
        let rejok = count(k, l, &["rejected", "refails"]);
        let refails = count(k, l, &["refails"]);
        let skipped = count(k, l, &["skipped"]);
        let ncrashed = count(k, l, &["crashed"]);
        let mut line = format!("{same}/{total} identical");
        let mut extra = Vec::new();
        if nexp > 0 {
            extra.push(format!("{nexp} expected by DECISIONS"));
        }
        if nvaries > 0 {
            extra.push(format!("{nvaries} not comparable"));
        }
        if !extra.is_empty() {
            line.push_str(&format!(" ({})", extra.join("; ")));
        }
        if refails > 0 {
            line.push_str(&format!(
                "; rejected by the reference: {rej}, by ours too: {}, reference fails, ours \
                 matches input: {refails} (together {rejok}/{rej})",
                rejok - refails
            ));
        } else {
            line.push_str(&format!(
                "; rejected by the reference: {rej}, by ours too: {rejok}/{rej}"
            ));
        }
        if ncrashed > 0 {
            line.push_str(&format!("; OURS CRASHED: {ncrashed}"));
        }
        if skipped > 0 {
            line.push_str(&format!("; skipped (too large): {skipped}"));
        }
        line
    };
    for kind in KINDS {
        for opts in OPT_SETS {
            println!(
                "{kind} {}: {}",
                opt_display(opts),
                counts_line(kind, &copy_label(opts))
            );
        }
    }
    println!("total: {}", counts_line("all", "all"));
    let all = |s: &[&str]| count("all", "all", s);
    let all_results = results.len();
    let compared = all(&[
        "same", "differ", "expected", "rejected", "refails", "accepted", "crashed",
    ]);
    if compared == 0 {
        eprintln!(
            "conformance: nothing was compared (no input, or every case skipped or not comparable)"
        );
    }
    let expected = OPT_SETS.len() * list.len();
    if all_results != expected {
        eprintln!("conformance: expected {expected} results, got {all_results} (a worker failed?)");
    }
    let reportdir = show_path(ctx, &report);
    let show = |statuses: &[&str], count: usize, title: &str| {
        if count == 0 {
            return;
        }
        if ctx.verbose || count <= 20 {
            println!("{title} ({count}):");
            print_results(&results, statuses, count);
        } else {
            println!("{title} (first 20 of {count}, --verbose for all):");
            print_results(&results, statuses, 20);
        }
    };
    let mut failures = 0;
    let c = all(&["crashed"]);
    show(
        &["crashed"],
        c,
        &format!(
            "ours crashed (a failure, whatever the reference did; reports in {reportdir}/KIND/NAME.OPTS.diff)"
        ),
    );
    failures += c;
    let c = all(&["differ"]);
    show(
        &["differ"],
        c,
        &format!("failures (diffs in {reportdir}/KIND/NAME.OPTS.diff)"),
    );
    failures += c;
    let c = all(&["accepted"]);
    show(
        &["accepted"],
        c,
        &format!(
            "the reference rejects; ours does not, or leaves a file (DECISIONS D7; reports in {reportdir}/KIND/NAME.OPTS.diff)"
        ),
    );
    failures += c;
    let c = all(&["expected"]);
    if c > 0 {
        println!("expected differences (known_differences in scripts/conformance; {c}):");
        print_results(&results, &["expected"], c);
    }
    let mut stale = Vec::new();
    for k in known {
        if k.opts.starts_with("zarr") {
            continue;
        }
        let base = k.name.rsplit_once('/').map_or(k.name, |(_, b)| b);
        for name in &ctx.names {
            if name == base {
                let seen = results.iter().any(|r| {
                    (r.name == k.name || format!("{}/{}", r.kind, r.name) == k.name)
                        && r.opts == k.opts
                        && r.status == "expected"
                });
                if !seen {
                    stale.push(format!(
                        "{} {} ({})",
                        k.name,
                        opt_display(k.opts),
                        k.decision
                    ));
                }
            }
        }
    }
    if !stale.is_empty() {
        println!(
            "known differences not seen (identical now, other differences, or skipped: update or remove the entry?):"
        );
        for s in &stale {
            println!("  {s}");
        }
    }
    let c = all(&["varies", "rvaries"]);
    if c > 0 {
        println!(
            "not comparable (two runs of the reference ncdump differ, e.g. it prints uninitialised memory; or the reference nccopy timed out):"
        );
        if ctx.verbose || c <= 20 {
            print_results(&results, &["varies", "rvaries"], c);
        } else {
            print_results(&results, &["varies", "rvaries"], 20);
            println!("  ... ({} more, --verbose for all)", c - 20);
        }
    }
    if ctx.verbose {
        show(
            &["rejected", "refails"],
            all(&["rejected", "refails"]),
            "rejected by the reference, and by ours too or copied with the input's data",
        );
    }
    if all(&["skipped"]) > 0 {
        println!(
            "skipped (inputs over {} MiB, every option set):",
            MAX_INPUT >> 20
        );
        let mut seen = std::collections::BTreeSet::new();
        for r in results.iter().filter(|r| r.status == "skipped") {
            if seen.insert((r.kind.clone(), r.name.clone())) {
                println!("  {} {}  {}", r.kind, r.name, r.detail);
            }
        }
    }
    let _ = fs::remove_dir_all(&tmp);
    println!("({}s)", start.elapsed().as_secs());
    Ok(i32::from(
        failures > 0 || all_results != expected || compared == 0,
    ))
}

/// The first `limit` results of these statuses, in kind, option set, name order.
fn print_results(results: &[Res], statuses: &[&str], limit: usize) {
    let runs = results
        .iter()
        .filter(|r| statuses.contains(&r.status))
        .map(|r| Listed {
            kind: &r.kind,
            opts: r.opts,
            name: &r.name,
            detail: &r.detail,
        })
        .collect();
    for line in listing(runs, &KINDS, &OPT_SETS, limit) {
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_declared_sizes() {
        assert_eq!(copy_label(""), "none");
        assert_eq!(copy_label("-k nc4 -d 1 -s"), "knc4-d1-s");
        let h = b"netcdf x {\ndimensions:\n\td = 1000 ;\n\tt = UNLIMITED ; // (3 currently)\nvariables:\n\tdouble v(t, d) ;\n\t\tv:units = \"m\" ;\n\tint s ;\n}\n";
        assert_eq!(declared_bytes(h), 8.0 * 3.0 * 1000.0 + 4.0);
        assert!(is_variable_line("\tdouble v(t, d) ;"));
        assert!(!is_variable_line("\t\tv:units = \"m\" ;"));
        assert!(!is_variable_line("double v ;"));
    }
}
