//! Output safety, as a user meets it: an output path that cannot be written, or whose
//! writing would destroy something, is refused before any data moves; SIGINT and SIGTERM,
//! once or many times, leave nothing beside the target; a crash inside libhdf5 is one
//! paragraph, exit 1, and no temporary output. An existing target is untouched on every
//! failure. Signals are sent through the libc (`support::send_signal`), never by running
//! a `kill` program.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, SIGINT, SIGTERM};

use crate::nccopy::big_classic;
use crate::support::{ok, scratch, send_signal, temporary_of, test_data, Run, Test};

const CDL: &str = "netcdf small {\ndimensions:\n x = 4 ;\nvariables:\n int v(x) ;\n  v:a = 1 ;\n\
                   data:\n v = 1, 2, 3, 4 ;\n}\n";

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("cannot write {path:?}: {e}"));
}

fn mkdir(path: &Path) {
    std::fs::create_dir_all(path).unwrap_or_else(|e| panic!("cannot make {path:?}: {e}"));
}

/// The names in `dir` (recursively, relative, sorted).
fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            out.push(name);
            if path.is_dir() {
                walk(root, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The names in `dir` (not recursively, links not followed, sorted).
fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// A small netCDF-4 file `name` in `dir`, made by our ncgen, and its CDL.
fn small_nc4(dir: &Path, name: &str) -> PathBuf {
    let cdl = dir.join(format!("{name}.cdl"));
    write(&cdl, CDL);
    let file = dir.join(name);
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&file)
        .arg(&cdl)
        .run();
    ok("made", &made);
    file
}

/// Asserts a refusal: exit 1, one line naming `target` and containing `needle`.
#[track_caller]
fn assert_refused(run: &Run, target: &str, needle: &str) {
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_eq!(
        run.stderr.lines().count(),
        1,
        "not one line: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(target),
        "{target} not in {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(needle),
        "{needle:?} not in {}",
        run.stderr
    );
}

#[test]
fn a_directory_as_the_output_is_refused_before_anything_is_written() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let out = dir.path().join("results");
    mkdir(&out);
    write(&out.join("keep.txt"), "mine");
    let before = tree(dir.path());
    let target = out.display().to_string();
    let copied = Test::ours("nccopy").arg(&input).arg(&out).run();
    assert_refused(
        &copied,
        &target,
        "is a directory; give the output file's name",
    );
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o", &target])
        .arg(dir.path().join("in.nc.cdl"))
        .run();
    assert_refused(
        &made,
        &target,
        "is a directory; give the output file's name",
    );
    // Also with the output named after the CDL file (`in.nc.cdl` makes `in.nc.nc`, as
    // the reference names it), in a directory holding one of that name.
    mkdir(&dir.path().join("in.nc.nc"));
    let derived = Test::ours("ncgen")
        .arg("-b")
        .arg(dir.path().join("in.nc.cdl"))
        .current_dir(dir.path())
        .run();
    assert_refused(&derived, "in.nc.nc", "is a directory");
    std::fs::remove_dir(dir.path().join("in.nc.nc")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tree(dir.path()), before, "something was written");
}

#[test]
fn a_zarr_output_replaces_a_store_but_not_a_directory_of_other_files() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let notes = dir.path().join("notes.zarr");
    mkdir(&notes);
    write(&notes.join("notes.txt"), "mine");
    let refused = Test::ours("nccopy").arg(&input).arg(&notes).run();
    assert_refused(
        &refused,
        "notes.zarr",
        "is a directory that is not a Zarr store",
    );
    assert_eq!(tree(&notes), ["notes.txt"]);
    let url = format!("file://{}#mode=nczarr,file", notes.display());
    let refused = Test::ours("nccopy").arg(&input).arg(&url).run();
    assert_refused(&refused, &url, "remove it yourself, or give another path");
    // A store, or an empty directory, is replaced.
    let store = dir.path().join("s.zarr");
    for _ in 0..2 {
        let copied = Test::ours("nccopy").arg(&input).arg(&store).run();
        ok("copied", &copied);
    }
    let empty = dir.path().join("empty.zarr");
    mkdir(&empty);
    let copied = Test::ours("nccopy").arg(&input).arg(&empty).run();
    ok("copied", &copied);
    assert!(tree(&empty).contains(&".zgroup".to_string()));
}

#[test]
fn an_output_directory_that_is_missing_or_cannot_be_written_is_refused() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let missing = dir.path().join("no/such/dir/out.nc");
    let copied = Test::ours("nccopy").arg(&input).arg(&missing).run();
    assert_refused(
        &copied,
        "out.nc",
        "does not exist; create it first (mkdir -p",
    );
    // /proc takes no new files, whoever asks (root included, whom permissions never stop).
    for target in ["/proc/nctools-out.nc", "/proc/nctools-out.zarr"] {
        let copied = Test::ours("nccopy").arg(&input).arg(target).run();
        assert_refused(
            &copied,
            target,
            "cannot create files in the directory /proc",
        );
    }
    let made = Test::ours("ncgen")
        .args(["-o", "/proc/nctools-out.nc"])
        .arg(dir.path().join("in.nc.cdl"))
        .run();
    assert_refused(
        &made,
        "/proc/nctools-out.nc",
        "cannot create files in the directory",
    );
}

#[test]
fn the_input_named_another_way_is_refused_and_left_as_it_was() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let bytes = std::fs::read(&input).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&input, dir.path().join("link.nc"))
        .unwrap_or_else(|e| panic!("{e}"));
    for target in ["in.nc", "./in.nc", "link.nc", "out/../in.nc"] {
        mkdir(&dir.path().join("out"));
        let copied = Test::ours("nccopy")
            .args(["in.nc", target])
            .current_dir(dir.path())
            .run();
        assert_refused(
            &copied,
            target,
            "writing the output there would replace the input",
        );
        if target != "in.nc" {
            assert!(copied.stderr.contains("the same file under another name"));
        }
    }
    // The CDL of ncgen is an input too.
    let made = Test::ours("ncgen")
        .args(["-o", "./in.nc.cdl", "in.nc.cdl"])
        .current_dir(dir.path())
        .run();
    assert_refused(&made, "./in.nc.cdl", "would replace the input");
    // A store copied onto itself.
    let store = dir.path().join("s.zarr");
    let copied = Test::ours("nccopy").arg(&input).arg(&store).run();
    ok("copied", &copied);
    let again = Test::ours("nccopy")
        .arg(&store)
        .arg(format!("{}/", store.display()))
        .run();
    assert_refused(&again, "s.zarr", "would replace the input");
    assert_eq!(std::fs::read(&input).ok(), Some(bytes));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("in.nc.cdl")).ok(),
        Some(CDL.to_string())
    );
}

#[test]
fn an_existing_target_is_untouched_when_writing_fails() {
    let dir = scratch();
    let target = dir.path().join("out.nc");
    write(&target, "precious");
    // ncgen: a bad value in the data section, found after the output was created.
    let cdl = dir.path().join("bad.cdl");
    write(
        &cdl,
        "netcdf bad {\ndimensions:\n x = 3 ;\nvariables:\n int v(x) ;\ndata:\n v = 1, 2, oops ;\n}\n",
    );
    let made = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(&target)
        .arg(&cdl)
        .run();
    assert_eq!(made.code, Some(1), "{}", made.stderr);
    // nccopy: a file that crashes libhdf5 in the middle of the copy.
    let crashing = test_data("safety/crashes-libhdf5.nc");
    contained("nccopy", None, [crashing.as_path(), &target]);
    assert_eq!(
        std::fs::read_to_string(&target).ok().as_deref(),
        Some("precious")
    );
    assert_eq!(tree(dir.path()), ["bad.cdl", "out.nc"]);
}

/// A run of several seconds of `tool` onto `out`, returned once it is under way: when
/// its temporary output `.NAME.nctools-PID-RANDOM.tmp` is there. nccopy copies `big.nc` (2
/// million floats) one value per slab; ncgen writes `big.cdl` (the same, as CDL).
fn run_under_way(tool: &str, dir: &Path, out: &Path) -> Child {
    let mut command = Command::new(crate::support::ours_path(tool));
    match tool {
        "nccopy" => command.args(["-m", "4"]).arg(dir.join("big.nc")),
        _ => command
            .args(["-k", "nc4", "-o"])
            .arg(out)
            .arg(dir.join("big.cdl")),
    };
    if tool == "nccopy" {
        command.arg(out);
    }
    let mut child = command
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {tool}: {e}"));
    let pid = child.id();
    let start = Instant::now();
    while temporary_of(out, pid).is_none() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{tool} ended ({status}) before its temporary output for {out:?} appeared");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary output for {out:?} after 60 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    // Into the writing proper, past the definition of the output.
    std::thread::sleep(Duration::from_millis(100));
    child
}

/// How a signalled run ended: its exit code, or the signal that ended it, and its stderr.
fn ended(child: Child) -> Run {
    let done = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("the tool did not finish: {e}"));
    Run::from(done)
}

/// Sends `signals` to `tool` writing onto an existing target (`out`, a file holding
/// "precious" or a store), `gap` apart, and checks that it ended by the first (exit 128 +
/// signal, with its message) or by a later one (killed by it), leaving the target as it
/// was and nothing beside it.
fn signal_a_run(tool: &str, out_name: &str, signals: &[Signal], gap: Duration) {
    let dir = scratch();
    big_classic(dir.path(), 2_000_000);
    let out_dir = dir.path().join("out");
    mkdir(&out_dir);
    let out = out_dir.join(out_name);
    if out_name.ends_with(".zarr") {
        let copied = Test::ours("nccopy")
            .arg(small_nc4(dir.path(), "small.nc"))
            .arg(&out)
            .run();
        ok("copied", &copied);
    } else {
        write(&out, "precious");
    }
    let before = tree(&out_dir);
    let child = run_under_way(tool, dir.path(), &out);
    let pid = child.id();
    for (i, signal) in signals.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(gap);
        }
        send_signal(pid, *signal);
    }
    let run = ended(child);
    // Signals that come close together may be taken in any order: the one taken first
    // decides between a clean stop (128 + it) and death by a later one.
    let stopped_by = signals.iter().find(|s| run.code == Some(128 + **s as i32));
    let killed_by = signals.len() > 1 && signals.iter().any(|s| run.signal == Some(*s as i32));
    assert!(
        stopped_by.is_some() || killed_by,
        "{tool} {signals:?}: exit {:?}, signal {:?}: {}",
        run.code,
        run.signal,
        run.stderr
    );
    if let Some(signal) = stopped_by {
        let said = match *signal {
            SIGTERM => "terminated (SIGTERM); no output was written\n",
            _ => "interrupted; no output was written\n",
        };
        assert_eq!(run.stderr, format!("{tool}: {said}"));
    }
    assert_eq!(
        tree(&out_dir),
        before,
        "{tool} {signals:?}: left behind or changed"
    );
    if !out_name.ends_with(".zarr") {
        assert_eq!(
            std::fs::read_to_string(&out).ok().as_deref(),
            Some("precious")
        );
    }
}

#[test]
fn sigterm_stops_the_copy_with_143_and_leaves_no_file() {
    signal_a_run("nccopy", "out.nc", &[SIGTERM], Duration::ZERO);
}

#[test]
fn two_ctrl_c_within_100_ms_leave_no_file() {
    for gap in [
        Duration::ZERO,
        Duration::from_millis(1),
        Duration::from_millis(50),
    ] {
        signal_a_run("nccopy", "out.nc", &[SIGINT, SIGINT], gap);
    }
}

#[test]
fn two_sigterms_leave_no_file() {
    signal_a_run(
        "nccopy",
        "out.nc",
        &[SIGTERM, SIGTERM],
        Duration::from_millis(10),
    );
}

#[test]
fn a_zip_store_stopped_by_a_signal_leaves_the_target_as_it_was() {
    signal_a_run("nccopy", "out.zarr.zip", &[SIGTERM], Duration::ZERO);
    signal_a_run("ncgen", "out.zarr.zip", &[SIGINT], Duration::ZERO);
}

#[test]
fn ncgen_stopped_by_signals_in_any_number_leaves_no_zarr_store_behind() {
    signal_a_run("ncgen", "out.zarr", &[SIGINT], Duration::ZERO);
    signal_a_run(
        "ncgen",
        "out.zarr",
        &[SIGTERM, SIGINT, SIGTERM],
        Duration::from_millis(5),
    );
}

#[test]
fn ncgen_reading_a_pipe_ends_at_once_on_sigterm_and_leaves_neither_output_nor_spool() {
    let dir = scratch();
    let spool_dir = dir.path().join("tmp");
    mkdir(&spool_dir);
    let out = dir.path().join("out.nc");
    let mut child = Command::new(crate::support::ours_path("ncgen"))
        .args(["-k", "nc4", "-o"])
        .arg(&out)
        .arg("-")
        .env("TMPDIR", &spool_dir)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start ncgen: {e}"));
    // Half a CDL, and the pipe kept open until ncgen is gone: it waits for the rest,
    // spooling it.
    let mut stdin = child.stdin.take();
    if let Some(pipe) = stdin.as_mut() {
        use std::io::Write;
        let _ = pipe.write_all(b"netcdf half {\ndimensions:\n x = 4 ;\n");
        let _ = pipe.flush();
    }
    let start = Instant::now();
    while tree(&spool_dir).is_empty() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100));
    send_signal(child.id(), SIGTERM);
    let start = Instant::now();
    while child.try_wait().ok().flatten().is_none() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(stdin);
    let run = ended(child);
    assert_eq!(
        run.signal,
        Some(SIGTERM as i32),
        "{:?}: {}",
        run.code,
        run.stderr
    );
    assert_eq!(tree(dir.path()), ["tmp"], "left behind");
}

/// Runs our `tool` with `args`, expecting a crash contained by the crash handler (which
/// [`Test::run`] would take for the crash it is): exit 1, not a signal.
fn contained<I, S>(tool: &str, crash: Option<&str>, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    // The test hook: raise `signal` inside the library while a variable is read or
    // written (ncio::crash_guard).
    let env: Vec<(&str, &str)> = crash
        .map(|s| ("NCTOOLS_TEST_CRASH", s))
        .into_iter()
        .collect();
    contained_env(tool, &env, args)
}

/// [`contained`] with these environment variables.
fn contained_env<I, S>(tool: &str, env: &[(&str, &str)], args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut command = Command::new(crate::support::ours_path(tool));
    command.args(args).envs(env.iter().copied());
    let run = crate::support::run(&mut command);
    assert_eq!((run.code, run.signal), (Some(1), None), "{}", run.stderr);
    run
}

#[test]
fn a_crash_inside_the_library_is_one_paragraph_exit_1_and_no_output() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let shown = input.display().to_string();
    for (signal, number) in [
        ("SIGSEGV", 11),
        ("SIGBUS", 7),
        ("SIGABRT", 6),
        ("SIGFPE", 8),
    ] {
        let dumped = contained("ncdump", Some(signal), [&input]);
        assert_eq!(
            dumped.stderr,
            format!(
                "ncdump: {shown}: crashed inside the netCDF/HDF5 library while reading \
                 variable /v (signal {number}, {signal}); the file is probably corrupt\n"
            )
        );
    }
    // On a reading thread of -j as on the main one.
    let threaded = contained(
        "ncdump",
        Some("SIGSEGV"),
        ["-j".as_ref(), "2".as_ref(), input.as_os_str()],
    );
    assert!(
        threaded
            .stderr
            .contains("while reading variable /v (signal 11, SIGSEGV)"),
        "{}",
        threaded.stderr
    );
    // A stack overflow is caught too: the handler runs on its own stack.
    let overflowed = contained("ncdump", Some("stack"), [&input]);
    assert!(
        overflowed
            .stderr
            .contains("while reading variable /v (signal 11, SIGSEGV)"),
        "{}",
        overflowed.stderr
    );
    // nccopy, into a file and into a store: no temporary left, the target untouched.
    let out = dir.path().join("out");
    mkdir(&out);
    write(&out.join("copy.nc"), "precious");
    for target in [out.join("copy.nc"), out.join("copy.zarr")] {
        let copied = contained("nccopy", Some("SIGSEGV"), [&input, &target]);
        assert_eq!(
            copied.stderr,
            format!(
                "nccopy: {shown}: crashed inside the netCDF/HDF5 library while copying \
                 variable /v (signal 11, SIGSEGV); the file is probably corrupt; no output \
                 was written\n"
            )
        );
        assert_eq!(tree(&out), ["copy.nc"], "left behind");
    }
    // ncgen: the file it writes is named, and the crash is to be reported.
    let target = out.join("made.nc");
    let cdl = dir.path().join("in.nc.cdl");
    let made = contained(
        "ncgen",
        Some("SIGSEGV"),
        [
            "-k".as_ref(),
            "nc4".as_ref(),
            "-o".as_ref(),
            target.as_os_str(),
            cdl.as_os_str(),
        ],
    );
    assert_eq!(
        made.stderr,
        format!(
            "ncgen: {}: crashed inside the netCDF/HDF5 library while writing variable /v \
             (signal 11, SIGSEGV); a fault in the library or in nctools: please report it \
             with the command you ran; no output was written\n",
            target.display()
        )
    );
    assert_eq!(tree(&out), ["copy.nc"], "left behind");
    assert_eq!(
        std::fs::read_to_string(out.join("copy.nc")).ok().as_deref(),
        Some("precious")
    );
}

/// tests/data/safety/crashes-libhdf5.nc: a netCDF-4 file of variable-length data
/// (tests/data/nccopy/kinds.cdl by netCDF-C's ncgen) with two bytes changed, on which
/// libhdf5 1.10 dereferences a bad pointer reading variable /vl (netCDF-C 4.9.0's ncdump
/// dies of SIGSEGV). Another libhdf5 may refuse it cleanly instead: either way, exit 1 and
/// one paragraph.
#[test]
fn a_file_that_crashes_libhdf5_gets_one_paragraph_and_leaves_nothing() {
    let file = test_data("safety/crashes-libhdf5.nc");
    let shown = file.display().to_string();
    // Refused before libhdf5 reads it: one of its global heap objects is out of bounds.
    let refused = contained("ncdump", None, [&file]);
    assert_eq!(
        refused.stderr,
        format!(
            "ncdump: {shown}: corrupt netCDF-4/HDF5 file (corrupt HDF5 global heap at byte \
             2048: object 20 at byte 2408 claims 12970366926827028492 bytes, but only 3720 \
             remain in its 4096-byte collection); libhdf5 cannot read it safely, so it was \
             not opened\n"
        )
    );
    // With the check off, libhdf5 meets the heap: the crash handler contains the fault.
    let unchecked = [("NCTOOLS_HDF5_HEAP_CHECK", "0")];
    let dumped = contained_env("ncdump", &unchecked, [&file]);
    let dir = scratch();
    let copied = contained_env(
        "nccopy",
        &unchecked,
        [file.clone(), dir.path().join("copy.nc")],
    );
    assert_eq!(dumped.stderr.lines().count(), 1, "{}", dumped.stderr);
    assert!(
        dumped.stderr.starts_with(&format!("ncdump: {shown}: ")),
        "{}",
        dumped.stderr
    );
    assert!(dumped.stderr.contains("corrupt"), "{}", dumped.stderr);
    assert!(copied.stderr.contains("corrupt"), "{}", copied.stderr);
    assert!(
        tree(dir.path()).is_empty(),
        "left behind: {:?}",
        tree(dir.path())
    );
}

/// tests/data/safety/loops-libhdf5.nc: netCDF-C's nc_test4 ref_fillonly.nc with 5 bits
/// flipped (the corruption campaign's seed 11, copy 17): one global heap object grows over
/// the free space's header, and libhdf5 1.10 loops forever reading the heap (netCDF-C
/// 4.9.0's ncdump and nccopy hang). The heap check refuses it at once, in every read of
/// a netCDF-4 file (before, `nccopy --kerchunk` opened its inputs itself, without it).
#[test]
fn a_file_that_makes_libhdf5_loop_is_refused_at_once() -> std::io::Result<()> {
    let file = test_data("safety/loops-libhdf5.nc");
    let shown = file.display().to_string();
    let dir = scratch();
    let out = dir.path().join("copy.nc");
    let refs = dir.path().join("refs.json");
    for (tool, args) in [
        ("ncdump", vec![file.clone()]),
        ("nccopy", vec![file.clone(), out.clone()]),
        (
            "nccopy",
            vec!["--kerchunk".into(), refs.clone(), file.clone()],
        ),
    ] {
        let mut child = Command::new(crate::support::ours_path(tool))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        let deadline = Instant::now() + Duration::from_secs(60);
        while child.try_wait()?.is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{tool} still running after 60 s: the heap check missed the loop");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let run = Run::from(child.wait_with_output()?);
        assert_eq!((run.code, run.signal), (Some(1), None), "{}", run.stderr);
        assert_eq!(
            run.stderr,
            format!(
                "{tool}: {shown}: corrupt netCDF-4/HDF5 file (corrupt HDF5 global heap at \
                 byte 2048: its free space at byte 2624 claims 0 bytes where 3520 remain); \
                 libhdf5 cannot read it safely, so it was not opened\n"
            )
        );
    }
    assert!(
        tree(dir.path()).is_empty(),
        "left behind: {:?}",
        tree(dir.path())
    );
    Ok(())
}

/// Our ncdump of `file`, from its first dimensions line on (the dataset's name, taken
/// from the file name, left out).
fn dumped(file: &Path) -> String {
    let run = Test::ours("ncdump").arg(file).run();
    ok("run", &run);
    crate::support::from_line(&run.stdout, "dimensions:").to_string()
}

/// Makes the symbolic link `at` holding `to`.
fn symlink(to: &str, at: &Path) {
    std::os::unix::fs::symlink(to, at).unwrap_or_else(|e| panic!("cannot link {at:?}: {e}"));
}

/// Asserts `link` is still a symbolic link holding `to`.
#[track_caller]
fn assert_link(link: &Path, to: &str) {
    let held = std::fs::read_link(link).unwrap_or_else(|e| panic!("{link:?}: not a link: {e}"));
    assert_eq!(held, Path::new(to), "{link:?} changed");
}

/// Fails the test unless the system's `/dev/stdout` is the link it should be (to
/// `/proc/self/fd/1`): a tool of old (netCDF-C's nccopy of a classic file into a pipe
/// removes its output on failure, the next netCDF-4 one creates a file there) may have
/// broken it.
#[track_caller]
fn assert_dev_stdout_is_a_link() {
    let link = std::fs::read_link("/dev/stdout");
    assert!(
        link.as_ref()
            .is_ok_and(|to| to == Path::new("/proc/self/fd/1")),
        "the system's /dev/stdout is not the link to /proc/self/fd/1 ({link:?}): something \
         replaced it; restore it (ln -sf /proc/self/fd/1 /dev/stdout) and run the test again"
    );
}

/// Another small CDL, whose data tells a new output from the old one.
const OTHER_CDL: &str = "netcdf other {\ndimensions:\n y = 2 ;\nvariables:\n short w(y) ;\n\
                         data:\n w = 7, 8 ;\n}\n";

#[test]
fn a_symbolic_link_output_is_written_through_and_stays_a_link() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let classic = dir.path().join("in3.nc");
    let made = Test::ours("ncgen")
        .args(["-k", "classic", "-o"])
        .arg(&classic)
        .arg(dir.path().join("in.nc.cdl"))
        .run();
    ok("made", &made);
    let other = dir.path().join("other.cdl");
    write(&other, OTHER_CDL);
    let data = dir.path().join("data");
    let links = dir.path().join("links");
    mkdir(&data);
    mkdir(&links);
    // links/NAME -> ../data/NAME (relative), each pointing at an old file.
    for (name, source) in [
        ("classic.nc", &classic),
        ("nc4.nc", &input),
        ("made.nc", &input),
    ] {
        write(&data.join(name), "old");
        symlink(&format!("../data/{name}"), &links.join(name));
        let target = links.join(name);
        let run = if name == "made.nc" {
            Test::ours("ncgen")
                .args(["-k", "nc4", "-o"])
                .arg(&target)
                .arg(&other)
                .run()
        } else {
            Test::ours("nccopy").arg(source).arg(&target).run()
        };
        assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
        assert_link(&target, &format!("../data/{name}"));
        let expected = match name {
            "made.nc" => {
                "dimensions:\n\ty = 2 ;\nvariables:\n\tshort w(y) ;\ndata:\n\n w = 7, 8 ;\n}\n"
                    .to_string()
            }
            _ => dumped(source),
        };
        assert_eq!(dumped(&data.join(name)), expected, "{name}");
    }
    let format = Test::ours("ncdump")
        .arg("-k")
        .arg(data.join("classic.nc"))
        .run();
    assert_eq!(format.stdout, "classic\n");
    assert_eq!(names(&data), ["classic.nc", "made.nc", "nc4.nc"]);
    assert_eq!(names(&links), ["classic.nc", "made.nc", "nc4.nc"]);
}

#[test]
fn a_symbolic_link_to_a_zarr_store_replaces_the_store_it_leads_to() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let stores = dir.path().join("stores");
    let links = dir.path().join("links");
    mkdir(&stores);
    mkdir(&links);
    // An old store, from another dataset, behind links/s.zarr -> ../stores/real.zarr.
    let other = dir.path().join("other.cdl");
    write(&other, OTHER_CDL);
    let old = Test::ours("ncgen")
        .args(["-k", "nc4", "-o"])
        .arg(stores.join("real.zarr"))
        .arg(&other)
        .run();
    ok("old", &old);
    let link = links.join("s.zarr");
    symlink("../stores/real.zarr", &link);
    let copied = Test::ours("nccopy").arg(&input).arg(&link).run();
    ok("copied", &copied);
    assert_link(&link, "../stores/real.zarr");
    assert_eq!(dumped(&stores.join("real.zarr")), dumped(&input));
    assert_eq!(names(&links), ["s.zarr"]);
    // The new store alone: neither the old one's variable nor a temporary.
    assert_eq!(
        tree(&stores),
        [
            "real.zarr",
            "real.zarr/.zattrs",
            "real.zarr/.zgroup",
            "real.zarr/.zmetadata",
            "real.zarr/v",
            "real.zarr/v/.zarray",
            "real.zarr/v/.zattrs",
            "real.zarr/v/0"
        ]
    );
}

#[test]
fn dev_stdout_onto_a_file_is_written_through_and_stays_a_link() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let cdl = dir.path().join("in.nc.cdl");
    assert_dev_stdout_is_a_link();
    for (tool, name) in [("nccopy", "copied.nc"), ("ncgen", "made.nc")] {
        let out = dir.path().join(name);
        let stdout = std::fs::File::create(&out).unwrap_or_else(|e| panic!("{e}"));
        let mut command = Command::new(crate::support::ours_path(tool));
        match tool {
            "nccopy" => command.arg(&input).arg("/dev/stdout"),
            _ => command.args(["-k", "nc4", "-o", "/dev/stdout"]).arg(&cdl),
        };
        let run = crate::support::run(command.stdout(stdout));
        crate::support::assert_no_crash(&run);
        assert_eq!(run.code, Some(0), "{tool}: {}", run.stderr);
        assert_eq!(dumped(&out), dumped(&input), "{tool}");
        let link = std::fs::symlink_metadata("/dev/stdout").map(|m| m.file_type().is_symlink());
        assert!(
            matches!(link, Ok(true)),
            "{tool}: /dev/stdout is no longer a link"
        );
    }
    assert_eq!(
        tree(dir.path()),
        ["copied.nc", "in.nc", "in.nc.cdl", "made.nc"]
    );
}

#[test]
fn a_pipe_or_a_fifo_as_the_output_is_refused_and_left_alone() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let cdl = dir.path().join("in.nc.cdl");
    // /dev/stdout onto a pipe: refused before anything is written to it.
    assert_dev_stdout_is_a_link();
    for (tool, args) in [
        ("nccopy", vec![input.clone(), "/dev/stdout".into()]),
        (
            "ncgen",
            vec!["-o".into(), "/dev/stdout".into(), cdl.clone()],
        ),
        (
            "ncgen",
            vec![
                "-k".into(),
                "classic".into(),
                "-o".into(),
                "/dev/stdout".into(),
                cdl.clone(),
            ],
        ),
    ] {
        let run = Test::ours(tool).args(&args).run();
        assert_refused(&run, "/dev/stdout", "is a pipe");
        assert!(
            run.stderr
                .contains("write it to a file, then cat that file"),
            "{}",
            run.stderr
        );
        assert_eq!(run.stdout, "", "{tool} wrote to the pipe");
    }
    // A FIFO: refused without opening it (which would wait for a reader).
    let fifo = dir.path().join("fifo.nc");
    let made = crate::support::run(Command::new("mkfifo").arg(&fifo));
    ok("mkfifo", &made);
    let shown = fifo.display().to_string();
    for (tool, args) in [
        ("nccopy", vec![input.clone(), fifo.clone()]),
        (
            "nccopy",
            vec!["-k".into(), "classic".into(), input.clone(), fifo.clone()],
        ),
        ("ncgen", vec!["-o".into(), fifo.clone(), cdl.clone()]),
    ] {
        let mut child = Command::new(crate::support::ours_path(tool))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {tool}: {e}"));
        let start = Instant::now();
        while child.try_wait().ok().flatten().is_none() {
            if start.elapsed() > Duration::from_secs(30) {
                // Unblock it (a reader), then fail.
                let _ = std::fs::File::open(&fifo);
                let _ = child.kill();
                panic!("{tool} still running after 30 s: it opened the FIFO");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let run = ended(child);
        crate::support::assert_no_crash(&run);
        assert_refused(&run, &shown, "is a pipe");
    }
    // Also as a Zarr store, which is a directory.
    let fifo_zarr = dir.path().join("fifo.zarr");
    let made = crate::support::run(Command::new("mkfifo").arg(&fifo_zarr));
    ok("mkfifo", &made);
    let run = Test::ours("nccopy").arg(&input).arg(&fifo_zarr).run();
    assert_refused(&run, "fifo.zarr", "is a pipe; a Zarr store is a directory");
    use std::os::unix::fs::FileTypeExt;
    for path in [&fifo, &fifo_zarr] {
        let kind = std::fs::symlink_metadata(path).map(|m| m.file_type().is_fifo());
        assert!(matches!(kind, Ok(true)), "{path:?} is no longer a FIFO");
    }
    assert_eq!(
        tree(dir.path()),
        ["fifo.nc", "fifo.zarr", "in.nc", "in.nc.cdl"]
    );
}

#[test]
fn the_null_device_takes_the_output_as_the_reference_does_and_stays_a_device() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let cdl = dir.path().join("in.nc.cdl");
    let spool = dir.path().join("tmp");
    mkdir(&spool);
    let tmpdir = [("TMPDIR", spool.to_str().unwrap_or_default())];
    for args in [
        vec![input.clone(), "/dev/null".into()],
        vec![
            "-k".into(),
            "classic".into(),
            input.clone(),
            "/dev/null".into(),
        ],
    ] {
        let run = Test::ours("nccopy").args(&args).envs(&tmpdir).run();
        ok("run", &run);
    }
    let made = Test::ours("ncgen")
        .args(["-o", "/dev/null"])
        .arg(&cdl)
        .envs(&tmpdir)
        .run();
    ok("made", &made);
    // And through /dev/stdout, when the standard output is the null device.
    let mut command = Command::new(crate::support::ours_path("nccopy"));
    command.arg(&input).arg("/dev/stdout").env("TMPDIR", &spool);
    let run = crate::support::run(command.stdout(Stdio::null()));
    ok("run", &run);
    // A file that cannot be copied still fails.
    let broken = dir.path().join("broken.nc");
    write(&broken, "CDF\x01 not really");
    let failed = Test::ours("nccopy").arg(&broken).arg("/dev/null").run();
    assert_eq!(failed.code, Some(1), "{}", failed.stderr);
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::symlink_metadata("/dev/null").map(|m| m.file_type().is_char_device());
    assert!(matches!(kind, Ok(true)), "/dev/null is no longer a device");
    assert!(
        tree(&spool).is_empty(),
        "left in TMPDIR: {:?}",
        tree(&spool)
    );
}

#[test]
fn a_link_planted_at_the_temporary_name_is_not_followed() {
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let cdl = dir.path().join("in.nc.cdl");
    let victims = dir.path().join("victims");
    let out = dir.path().join("out");
    mkdir(&victims);
    mkdir(&out);
    write(&victims.join("file"), "precious");
    mkdir(&victims.join("dir"));
    // The test hook fixes the first temporary name: `.NAME.nctools-planted.tmp`.
    let hook = [("NCTOOLS_TEST_TEMPORARY_SUFFIX", "planted")];
    let runs: [(&str, &str, Vec<&std::ffi::OsStr>); 4] = [
        ("nccopy", "nc4.nc", vec![input.as_os_str()]),
        (
            "nccopy",
            "classic.nc",
            vec!["-k".as_ref(), "classic".as_ref(), input.as_os_str()],
        ),
        (
            "ncgen",
            "made.nc",
            vec![
                "-k".as_ref(),
                "nc4".as_ref(),
                cdl.as_os_str(),
                "-o".as_ref(),
            ],
        ),
        ("nccopy", "s.zarr", vec![input.as_os_str()]),
    ];
    for (tool, name, args) in runs {
        let victim = if name.ends_with(".zarr") {
            "dir"
        } else {
            "file"
        };
        let planted = out.join(format!(".{name}.nctools-planted.tmp"));
        let to = victims.join(victim).display().to_string();
        symlink(&to, &planted);
        let run = Test::ours(tool)
            .args(args)
            .arg(out.join(name))
            .envs(&hook)
            .run();
        assert_eq!(run.code, Some(0), "{tool} {name}: {}", run.stderr);
        assert_eq!(dumped(&out.join(name)), dumped(&input), "{name}");
        assert_link(&planted, &to);
    }
    assert_eq!(
        std::fs::read_to_string(victims.join("file"))
            .ok()
            .as_deref(),
        Some("precious")
    );
    assert_eq!(tree(&victims), ["dir", "file"]);
    assert_eq!(
        names(&out),
        [
            ".classic.nc.nctools-planted.tmp",
            ".made.nc.nctools-planted.tmp",
            ".nc4.nc.nctools-planted.tmp",
            ".s.zarr.nctools-planted.tmp",
            "classic.nc",
            "made.nc",
            "nc4.nc",
            "s.zarr"
        ]
    );
}

/// A CDL of `n` variables: libnetcdf takes tens of seconds to define twenty thousand of
/// them (each `nc_def_var` looks through the ones before it, and `nc_enddef` writes them
/// all in one call). (A thousand nested compound types, which took minutes in one call,
/// are refused since types may nest at most 32 deep.)
fn many_variables(n: usize) -> String {
    let mut cdl = String::from("netcdf many {\ndimensions:\n  d = 1 ;\nvariables:\n");
    for i in 0..n {
        cdl.push_str(&format!("  int v{i}(d) ;\n"));
    }
    cdl.push_str("}\n");
    cdl
}

#[test]
fn sigterm_inside_a_long_library_call_ends_ncgen_within_seconds_and_leaves_no_file() {
    let dir = scratch();
    let cdl = dir.path().join("many.cdl");
    write(&cdl, many_variables(20_000));
    let out_dir = dir.path().join("out");
    mkdir(&out_dir);
    let out = out_dir.join("many.nc");
    let mut child = Command::new(crate::support::ours_path("ncgen"))
        .args(["-k", "nc4", "-o"])
        .arg(&out)
        .arg(&cdl)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start ncgen: {e}"));
    let start = Instant::now();
    while temporary_of(&out, child.id()).is_none() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("ncgen ended ({status}) before its temporary output appeared");
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary output"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // A second into the definition, which lasts tens of seconds.
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        matches!(child.try_wait(), Ok(None)),
        "ncgen finished too soon to test"
    );
    let sent = Instant::now();
    send_signal(child.id(), SIGTERM);
    while child.try_wait().ok().flatten().is_none() {
        if sent.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("ncgen still running 10 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let run = ended(child);
    assert_eq!(
        (run.code, run.signal),
        (None, Some(SIGTERM as i32)),
        "{}",
        run.stderr
    );
    assert!(
        tree(&out_dir).is_empty(),
        "left behind: {:?}",
        tree(&out_dir)
    );
}

/// Red team s35 RA11: nctools resolves an output's links itself, so the kernel's
/// `fs.protected_symlinks` (on by default in most distributions) never applied: a link
/// another user planted in a sticky, world-writable directory (`/tmp`) made root's
/// nccopy and ncgen replace the file it named, where netCDF-C's tools, which open the
/// link's path, get EACCES. The same rule is now applied by nctools: such a link is
/// refused, and the file it names kept; a link of one's own there is written through.
#[test]
fn a_link_another_user_planted_in_a_sticky_directory_is_not_written_through() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    let owner = std::fs::metadata(dir.path()).map(|m| std::os::unix::fs::MetadataExt::uid(&m));
    if owner.ok() != Some(0) {
        // Only root can make a link another user owns.
        crate::support::skip("root, to plant a link owned by another user");
        return;
    }
    let input = small_nc4(dir.path(), "in.nc");
    let cdl = dir.path().join("in.nc.cdl");
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777))
        .unwrap_or_else(|e| panic!("{e}"));
    let victim = dir.path().join("victim.conf");
    write(&victim, "precious");
    let planted = shared.join("out.nc");
    std::os::unix::fs::symlink(&victim, &planted).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::lchown(&planted, Some(65534), Some(65534)).unwrap_or_else(|e| panic!("{e}"));
    let zip = shared.join("out.zarr.zip");
    std::os::unix::fs::symlink(&victim, &zip).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::lchown(&zip, Some(65534), Some(65534)).unwrap_or_else(|e| panic!("{e}"));
    for (tool, args, link) in [
        ("nccopy", vec![input.clone(), planted.clone()], &planted),
        ("nccopy", vec![input.clone(), zip.clone()], &zip),
        (
            "ncgen",
            vec!["-o".into(), planted.clone(), cdl.clone()],
            &planted,
        ),
    ] {
        let done = Test::ours(tool).args(&args).run();
        assert_eq!(done.code, Some(1), "{tool} {args:?}: {}", done.stderr);
        assert!(
            done.stderr.contains("sticky, world-writable directory"),
            "{tool}: {}",
            done.stderr
        );
        assert_eq!(
            std::fs::read_to_string(&victim).ok().as_deref(),
            Some("precious")
        );
        assert!(std::fs::symlink_metadata(link).is_ok_and(|m| m.file_type().is_symlink()));
    }
    // Red team s35 RC5: a link of one's own outside that directory leading to the planted
    // one: refused too (before, the writer replaced the user's own link without a word).
    let chain = dir.path().join("chain.nc");
    std::os::unix::fs::symlink(&planted, &chain).unwrap_or_else(|e| panic!("{e}"));
    let done = Test::ours("nccopy").arg(&input).arg(&chain).run();
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert!(done.stderr.contains("leads through"), "{}", done.stderr);
    assert!(std::fs::symlink_metadata(&chain).is_ok_and(|m| m.file_type().is_symlink()));
    assert_eq!(
        std::fs::read_to_string(&victim).ok().as_deref(),
        Some("precious")
    );
    // A link of one's own in the same directory is written through, as before.
    let own = shared.join("own.nc");
    let target = dir.path().join("own-target.nc");
    std::os::unix::fs::symlink(&target, &own).unwrap_or_else(|e| panic!("{e}"));
    ok("nccopy", Test::ours("nccopy").arg(&input).arg(&own).run());
    assert!(std::fs::metadata(&target).is_ok_and(|m| m.len() > 0));
}

/// Red team s36 RE8: an output nctools replaces keeps the permission bits of what it
/// replaces, as a file rewritten in place does: a private file or store stays private.
/// Before: every output was a new file with the default mode, so `chmod 600 out.nc` then
/// `nccopy in.nc out.nc` left `out.nc` readable by everyone (and a 0700 store 0755).
#[test]
fn a_replaced_output_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    let input = small_nc4(dir.path(), "in.nc");
    let cdl = dir.path().join("in.nc.cdl");
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.permissions().mode() & 0o777)
            .unwrap_or(0)
    };
    let private = |p: &Path, bits: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(bits))
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    };
    let file = dir.path().join("out.nc");
    ok("nccopy", Test::ours("nccopy").arg(&input).arg(&file).run());
    private(&file, 0o600);
    ok("nccopy", Test::ours("nccopy").arg(&input).arg(&file).run());
    assert_eq!(mode(&file), 0o600, "nccopy over a private file");
    ok(
        "ncgen",
        Test::ours("ncgen").arg("-o").arg(&file).arg(&cdl).run(),
    );
    assert_eq!(mode(&file), 0o600, "ncgen over a private file");

    let store = dir.path().join("out.zarr");
    ok("nccopy", Test::ours("nccopy").arg(&input).arg(&store).run());
    private(&store, 0o700);
    ok("nccopy", Test::ours("nccopy").arg(&input).arg(&store).run());
    assert_eq!(mode(&store), 0o700, "nccopy over a private store");

    let zip = dir.path().join("out.zarr.zip");
    ok("nccopy", Test::ours("nccopy").arg(&input).arg(&zip).run());
    private(&zip, 0o640);
    ok("nccopy", Test::ours("nccopy").arg(&input).arg(&zip).run());
    assert_eq!(mode(&zip), 0o640, "nccopy over a private zip archive");
}
