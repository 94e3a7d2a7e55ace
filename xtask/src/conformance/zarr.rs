//! The zarr mode: our nccopy copies every netCDF-4 input to an NCZarr store (no option,
//! and `-F *,zstd,3`), our ncdump dumps the store, and its data section must equal that
//! of the reference ncdump of the input. A file with user-defined types must be refused
//! with a message naming one, leaving nothing behind.

use std::collections::BTreeMap;
use std::fs;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::known::{self, Known};
use super::nccopy::{input_too_large, MAX_INPUT};
use super::ncdump::{crash_desc, opt_display, reference, status};
use super::text::diff_lines;
use super::text::{excerpt, first_difference, lines};
use super::{gen, show_path, Ctx};
use crate::runner::{self, Ended, Spec};

/// The variants: our nccopy's options, and their labels.
const VARIANTS: [(&str, &str); 2] = [("", "none"), ("-F *,zstd,3", "zstd3")];
/// Our nccopy's time-out.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The OPTS of known_differences for a variant.
fn kd_opts(opts: &str) -> String {
    if opts.is_empty() {
        "zarr".to_string()
    } else {
        format!("zarr {opts}")
    }
}

/// The names of the user-defined types an `ncdump -h` declares, in any group.
pub fn user_types(header: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut t = false;
    for raw in lines(header) {
        let line = String::from_utf8_lossy(raw);
        let n = line.trim_start_matches([' ', '\t']);
        if n == "types:" {
            t = true;
            continue;
        }
        if t && ["dimensions:", "variables:", "group: ", "// ", "data:"]
            .iter()
            .any(|p| n.starts_with(p))
        {
            t = false;
        }
        if !t {
            continue;
        }
        let name = if let Some(rest) = n.strip_prefix("compound ") {
            rest.split(" {").next().unwrap_or("")
        } else if let Some((_, rest)) = n.rsplit_once(" enum ") {
            rest.split(" {").next().unwrap_or("")
        } else if let Some(rest) = n.strip_prefix("opaque(") {
            let Some((digits, after)) = rest.split_once(") ") else {
                continue;
            };
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            after.split(" ;").next().unwrap_or("")
        } else if let Some((_, rest)) = n.rsplit_once("(*) ") {
            rest.split(" ;").next().unwrap_or("")
        } else {
            continue;
        };
        let name = name.replace('\\', "");
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// The data section (from the line "data:" on) of an ncdump output.
fn data_section(out: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    let mut found = false;
    for l in lines(out) {
        if found || l == b"data:" {
            found = true;
            v.extend_from_slice(l);
            v.push(b'\n');
        }
    }
    v
}

/// One result.
#[derive(Debug, Clone)]
struct Res {
    name: String,
    label: &'static str,
    status: &'static str,
    detail: String,
}

/// Our nccopy to NAME.zarr with each variant, then our ncdump of the store.
fn worker(ctx: &Ctx, known: &[Known], kind: &str, name: &str) -> Result<Vec<Res>> {
    let res = |label, status, detail: String| Res {
        name: name.to_string(),
        label,
        status,
        detail,
    };
    let every = |status: &'static str, detail: String| -> Vec<Res> {
        VARIANTS
            .iter()
            .map(|(_, l)| res(*l, status, detail.clone()))
            .collect()
    };
    let (too_large, size) = input_too_large(ctx, kind, name);
    if too_large {
        return Ok(every(
            "skipped",
            format!(
                "input of {} MB (file or data), over {} MiB",
                size / 1_000_000,
                MAX_INPUT >> 20
            ),
        ));
    }
    let input_dump = reference(ctx, kind, name, "", false)?;
    if let Some(v) = &input_dump.varies {
        return Ok(every(
            "varies",
            format!(
                "the reference ncdump of the input varies: {}",
                v.lines().next().unwrap_or("")
            ),
        ));
    }
    if input_dump.rc != 0 {
        return Ok(every(
            "varies",
            format!("the reference ncdump of the input exits {}", input_dump.rc),
        ));
    }
    let input = ctx.out.join(kind).join(format!("{name}.nc"));
    let header = Spec::new(
        ctx.ref_bin.join("ncdump"),
        ["-h".to_string(), format!("{name}.nc")],
    )
    .cwd(ctx.out.join(kind))
    .timeout(super::ncdump::TIMEOUT)
    .keep_stdout();
    let types = runner::run(&header).map_or_else(|_| Vec::new(), |r| user_types(&r.stdout));
    let mut results = Vec::new();
    for (opts, label) in VARIANTS {
        let diff = ctx
            .out
            .join("report/zarr")
            .join(label)
            .join(format!("{name}.diff"));
        let tmp = super::scratch(ctx, "zarr.")?;
        let out_dir = tmp.path().join("out");
        fs::create_dir(&out_dir)?;
        let mut args: Vec<String> = opts.split_whitespace().map(str::to_string).collect();
        args.push(input.display().to_string());
        args.push(format!("{name}.zarr"));
        let spec = Spec::new(ctx.ours_bin.join("nccopy"), args)
            .cwd(&out_dir)
            .timeout(TIMEOUT);
        let run = runner::run(&spec)?;
        let rc = (run.ended != Ended::TimedOut).then(|| status(&run));
        let rc_text = rc.map_or("timedout".to_string(), |r| r.to_string());
        let crash = match rc {
            None => "timed out".to_string(),
            Some(rc) => crash_desc(rc, &run.stderr, None),
        };
        let line = excerpt(
            run.stderr
                .lines()
                .filter(|l| !l.contains(": warning: "))
                .find(|l| !l.trim().is_empty())
                .unwrap_or(""),
        );
        let opt_prefix = if opts.is_empty() {
            String::new()
        } else {
            format!("{opts} ")
        };
        let mut head = format!(
            "# {kind}/{name}.nc -> {name}.zarr by our nccopy {opt_prefix}(exit {rc_text})\n"
        );
        for l in run.stderr.lines().take(10) {
            head.push_str(&format!("# ours stderr: {l}\n"));
        }
        if !crash.is_empty() {
            crate::report::write_file(&diff, &head)?;
            results.push(res(label, "crashed", format!("ours crashed: {crash}")));
            continue;
        }
        let with_line = if line.is_empty() {
            String::new()
        } else {
            format!(": {line}")
        };
        if !types.is_empty() {
            let named = types.iter().find(|t| run.stderr.contains(t.as_str()));
            let mut left: Vec<String> = fs::read_dir(&out_dir)?
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            left.sort();
            let rc_n = rc.unwrap_or(-1);
            let detail = if rc_n != 1 && rc_n != 2 {
                format!(
                    "a file with user-defined types ({}): ours exits {rc_text} instead of refusing{with_line}",
                    types.join(",")
                )
            } else if !left.is_empty() {
                format!(
                    "ours refuses (exit {rc_text}) but leaves {}",
                    left.join(" ")
                )
            } else if let Some(t) = named {
                results.push(res(
                    label,
                    "cannot",
                    format!("ours exit {rc_text}, names {t}: {line}"),
                ));
                continue;
            } else {
                format!(
                    "ours refuses (exit {rc_text}), but the message names none of the types {}: {line}",
                    types.join(",")
                )
            };
            crate::report::write_file(&diff, &head)?;
            results.push(res(label, "differ", detail));
            continue;
        }
        if rc != Some(0) || !out_dir.join(format!("{name}.zarr")).is_dir() {
            crate::report::write_file(&diff, &head)?;
            results.push(res(
                label,
                "differ",
                format!("our nccopy exit {rc_text}{with_line}"),
            ));
            continue;
        }
        let dump_spec = Spec::new(ctx.ours_bin.join("ncdump"), [format!("{name}.zarr")])
            .cwd(&out_dir)
            .timeout(super::ncdump::TIMEOUT)
            .stdout_cap(super::ncdump::OUTPUT_CAP)
            .keep_stdout();
        let dump = runner::run(&dump_spec)?;
        let drc = status(&dump);
        let crash = crash_desc(drc, &dump.stderr, None);
        if !crash.is_empty() || drc != 0 {
            let mut text = format!("{head}# our ncdump {name}.zarr: exit {drc}\n");
            for l in dump.stderr.lines().take(10) {
                text.push_str(&format!("# ours stderr: {l}\n"));
            }
            crate::report::write_file(&diff, &text)?;
            if !crash.is_empty() {
                results.push(res(
                    label,
                    "crashed",
                    format!("our ncdump of the store crashed: {crash}"),
                ));
            } else {
                results.push(res(
                    label,
                    "differ",
                    format!(
                        "our ncdump of the store exits {drc}: {}",
                        excerpt(
                            dump.stderr
                                .lines()
                                .find(|l| !l.trim().is_empty())
                                .unwrap_or("")
                        )
                    ),
                ));
            }
            continue;
        }
        let ref_data = data_section(&input_dump.out);
        let ours_data = data_section(&dump.stdout);
        if ref_data == ours_data {
            results.push(res(label, "same", String::new()));
            continue;
        }
        let ref_file = tmp.path().join("ref.data");
        fs::write(&ref_file, &ref_data)?;
        let dl = diff_lines(&ref_file, &ours_data, super::ncdump::TIMEOUT);
        let kd = known.iter().find(|k| {
            (k.name == name || k.name == format!("{kind}/{name}")) && k.opts == kd_opts(opts)
        });
        let sig = format!("data:\n{}", dl.trim_end_matches('\n'));
        if let Some(k) = kd.filter(|k| k.expected == sig) {
            results.push(res(
                label,
                "expected",
                format!("{}: {}", k.decision, k.reason),
            ));
            continue;
        }
        let mut text = head.clone();
        if let Some(k) = kd {
            text.push_str(&format!(
                "# known_differences lists this case ({}: {}), with other differences\n",
                k.decision, k.reason
            ));
        }
        text.push_str("# the data sections, as known_differences would list them:\ndata:\n");
        for l in dl.lines().take(50) {
            text.push_str(l);
            text.push('\n');
        }
        crate::report::write_file(&diff, &text)?;
        results.push(res(
            label,
            "differ",
            format!(
                "data {}",
                first_difference(&ref_data, &ours_data, "reference", "ours")
            ),
        ));
    }
    Ok(results)
}

/// The zarr mode; returns the exit status.
pub fn mode(ctx: &Ctx) -> Result<i32> {
    let start = Instant::now();
    if !runner::is_executable(&ctx.ours_bin.join("ncdump")) {
        anyhow::bail!("our ncdump not found in {}", ctx.ours_bin.display());
    }
    let known = known::KNOWN;
    let report = ctx.out.join("report/zarr");
    let tmp = ctx.out.join("tmp");
    for d in [&report, &tmp] {
        if d.exists() {
            fs::remove_dir_all(d)?;
        }
    }
    for (_, label) in VARIANTS {
        fs::create_dir_all(report.join(label))?;
    }
    fs::create_dir_all(ctx.out.join("nc4"))?;
    fs::create_dir_all(&tmp)?;
    let banner = format!(
        "conformance zarr: our nccopy {} to NCZarr, our ncdump of the store, data vs the reference {} of the input",
        ctx.ours_bin.join("nccopy").display(),
        ctx.ref_bin.join("ncdump").display()
    );
    let generated = gen::announce(ctx, &banner, &["nc4"], "inputs (reference ncgen accepts):");
    let list = &generated.accepted;
    let _ = crate::limits::set_file_cap(8 << 30);
    let judged = crate::parallel::map(list, ctx.jobs, |(k, n)| worker(ctx, known, k, n), |_, _| {});
    let mut results = Vec::new();
    for ((k, n), r) in list.iter().zip(judged) {
        match r {
            Ok(r) => results.extend(r),
            Err(e) => eprintln!("conformance: zarr worker {k} {n} failed: {e:#}"),
        }
    }

    // Summary.
    let mut n: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for r in &results {
        *n.entry((r.label, r.status)).or_default() += 1;
        *n.entry(("all", r.status)).or_default() += 1;
    }
    let get = |l: &str, s: &str| n.get(&(l, s)).copied().unwrap_or(0);
    let zarr_line = |l: &str| {
        let failed = get(l, "differ") + get(l, "crashed");
        let mut line = format!(
            "passed {} / failed {failed} / cannot hold {} (refused naming the type)",
            get(l, "same"),
            get(l, "cannot")
        );
        if get(l, "expected") > 0 {
            line.push_str(&format!(" / expected differences {}", get(l, "expected")));
        }
        if get(l, "varies") > 0 {
            line.push_str(&format!(" / not comparable {}", get(l, "varies")));
        }
        if get(l, "skipped") > 0 {
            line.push_str(&format!(" / skipped (too large) {}", get(l, "skipped")));
        }
        if get(l, "crashed") > 0 {
            line.push_str(&format!("; OURS CRASHED: {}", get(l, "crashed")));
        }
        line
    };
    for (opts, label) in VARIANTS {
        println!("zarr {}: {}", opt_display(opts), zarr_line(label));
    }
    println!("total: {}", zarr_line("all"));
    let failures = get("all", "differ") + get("all", "crashed");
    let expected = VARIANTS.len() * list.len();
    if results.len() != expected {
        eprintln!(
            "conformance: expected {expected} results, got {} (a worker failed?)",
            results.len()
        );
    }
    let compared = get("all", "same") + failures + get("all", "expected") + get("all", "cannot");
    if compared == 0 {
        eprintln!(
            "conformance: nothing was compared (no input, or every case skipped or not comparable)"
        );
    }
    let reportdir = show_path(ctx, &report);
    let show = |status: &str, title: &str| {
        let mut these: Vec<&Res> = results.iter().filter(|r| r.status == status).collect();
        if these.is_empty() {
            return;
        }
        these.sort_by(|a, b| (a.label, &a.name).cmp(&(b.label, &b.name)));
        println!("{title} ({}):", these.len());
        for (i, r) in these.iter().enumerate() {
            if !ctx.verbose && i >= 20 {
                println!("  ... ({} more, --verbose for all)", these.len() - 20);
                break;
            }
            println!("  {} {}  {}", r.name, r.label, r.detail);
        }
    };
    show(
        "crashed",
        &format!("ours crashed (reports in {reportdir}/LABEL/NAME.diff)"),
    );
    show(
        "differ",
        &format!("failures (reports in {reportdir}/LABEL/NAME.diff)"),
    );
    show(
        "expected",
        "expected differences (known_differences in scripts/conformance)",
    );
    show("varies", "not comparable");
    if ctx.verbose {
        show(
            "cannot",
            "cannot hold (user-defined types), refused naming the type",
        );
    }
    let mut stale = Vec::new();
    for k in known {
        for (opts, label) in VARIANTS {
            if k.opts != kd_opts(opts) {
                continue;
            }
            let base = k.name.split_once('/').map_or(k.name, |(_, b)| b);
            for name in &ctx.names {
                if name == base
                    && !results
                        .iter()
                        .any(|r| r.name == base && r.label == label && r.status == "expected")
                {
                    stale.push(format!("{} {} ({})", k.name, k.opts, k.decision));
                }
            }
        }
    }
    if !stale.is_empty() {
        println!("known differences not seen (update or remove the entry?):");
        for s in &stale {
            println!("  {s}");
        }
    }
    let _ = fs::remove_dir_all(&tmp);
    println!("({}s)", start.elapsed().as_secs());
    Ok(i32::from(
        failures > 0 || results.len() != expected || compared == 0,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_user_types() {
        let h = b"netcdf x {\ntypes:\n  compound obs_t {\n    int a ;\n  }; // obs_t\n  byte enum cloud_t {Clear = 0} ;\n  opaque(11) raw_t ;\n  int(*) vlen_t ;\ndimensions:\n\td = 1 ;\n}\n";
        assert_eq!(user_types(h), ["obs_t", "cloud_t", "raw_t", "vlen_t"]);
        assert_eq!(kd_opts(""), "zarr");
        assert_eq!(kd_opts("-F *,zstd,3"), "zarr -F *,zstd,3");
    }
}
