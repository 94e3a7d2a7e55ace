//! Zarr stores in object stores, against servers the tests start on 127.0.0.1 only:
//! moto's S3 server (`python -m moto.server`, from the project's .venv), Python's
//! `http.server` for plain HTTP, and `tests/data/objstore/fault_proxy.py`, a proxy that
//! answers 500 to every Nth request or stops in the middle of a copy, or counts requests.
//!
//! - nccopy writes NCZarr (with zstd), Zarr v2 and Zarr v3 stores to S3, reads them back
//!   to netCDF-4 and copies S3 to S3; ncdump of each S3 store is ncdump of the same copy
//!   made on the local disk; netCDF-C's path-style `https://HOST/BUCKET/KEY#mode=...,s3`
//!   form names the same store as `s3://BUCKET/KEY`;
//! - a store is replaced as a local one is, and a prefix holding other objects is refused;
//! - a sharded Zarr v3 store (`--shards`) is one object per shard, and reads back (ncdump,
//!   and nccopy to netCDF-4 through ranged reads of the shards) as the local one, in
//!   fewer requests than one per inner chunk (the proxy's counting mode counts them);
//! - zarr-python (through s3fs) reads our S3 store, and we read one it wrote to S3;
//! - ncdump of a store served by a plain HTTP server equals ncdump of the local store;
//!   writing there is refused;
//! - four `nccopy --region` processes at once fill one S3 store (after `--template`),
//!   equal object for object and byte for byte to a single copy of the concatenated input,
//!   and so does a store made by `--append` of each input in turn;
//! - faults: wrong credentials are a clear error (exit 1); a server that stops mid-copy
//!   leaves no store that looks complete (no root metadata); 500s are retried.
//!
//! Servers are stopped by their guards (SIGTERM through the libc, then SIGKILL). Python
//! and its packages come from the project's .venv (scripts/setup); missing, they fail the
//! tests in CI and are a visible skip elsewhere.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{first_difference, ok, run, scratch, send_signal, skip, test_data, Run, Test};

/// The project's Python, if it has moto's server and s3fs (and zarr); `None` after a skip.
fn python() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    let check = "import moto.server, flask_cors, s3fs, zarr";
    if python.is_file() && run(Command::new(&python).args(["-c", check])).code == Some(0) {
        Some(python)
    } else {
        skip("the project virtualenv .venv with moto[server], s3fs and zarr");
        None
    }
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    match TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
        Ok(address) => address.port(),
        Err(e) => panic!("no free port on 127.0.0.1: {e}"),
    }
}

/// A server process the test started, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Server {
    /// Starts `program args` (which listens on `port`), its output in `log`, and waits
    /// until the port takes connections.
    fn start(
        program: &Path,
        args: &[&str],
        envs: &[(&str, &str)],
        port: u16,
        log: PathBuf,
    ) -> Self {
        let out = std::fs::File::create(&log)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let err = out
            .try_clone()
            .unwrap_or_else(|e| panic!("cannot share {}: {e}", log.display()));
        let child = Command::new(program)
            .args(args)
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let server = Self { child, port, log };
        let deadline = Instant::now() + Duration::from_secs(90);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "{} {args:?} did not listen on port {port}:\n{}",
                program.display(),
                server.output()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// moto's S3 server; `auth` turns its checking of credentials on (none are known to
    /// it, so every request is refused).
    fn moto(python: &Path, dir: &Path, auth: bool) -> Self {
        let port = free_port();
        let port_text = port.to_string();
        let envs: &[(&str, &str)] = if auth {
            &[("INITIAL_NO_AUTH_ACTION_COUNT", "0")]
        } else {
            &[]
        };
        let args = ["-m", "moto.server", "-H", "127.0.0.1", "-p", &port_text];
        Self::start(
            python,
            &args,
            envs,
            port,
            dir.join(format!("moto-{port}.log")),
        )
    }

    /// The fault proxy in front of `upstream`: `mode` fail-every or stop-after-puts.
    fn proxy(python: &Path, dir: &Path, upstream: &Server, mode: &str, n: u32) -> Self {
        Self::proxy_with(python, dir, upstream, &[mode, &n.to_string()])
    }

    /// The proxy in its counting mode in front of `upstream`, and the file where it
    /// keeps its counts (see [`request_counts`]).
    fn counting_proxy(python: &Path, dir: &Path, upstream: &Server) -> (Self, PathBuf) {
        let counts = dir.join(format!("requests-{}.txt", upstream.port));
        let proxy = Self::proxy_with(
            python,
            dir,
            upstream,
            &["count", "0", &counts.to_string_lossy()],
        );
        (proxy, counts)
    }

    /// The proxy in front of `upstream`, with the arguments `rest` after the ports.
    fn proxy_with(python: &Path, dir: &Path, upstream: &Server, rest: &[&str]) -> Self {
        let port = free_port();
        let script = test_data("objstore/fault_proxy.py");
        let mut args = vec![
            script.to_string_lossy().into_owned(),
            port.to_string(),
            upstream.port.to_string(),
        ];
        args.extend(rest.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Self::start(
            python,
            &args,
            &[],
            port,
            dir.join(format!("proxy-{port}.log")),
        )
    }

    /// The server's base URL.
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What the server printed so far.
    fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The answer to an unsigned request `method path` (which moto takes).
    fn request(&self, method: &str, path: &str) -> String {
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\n\
             Connection: close\r\n\r\n",
            self.port
        );
        let mut answer = String::new();
        let done = TcpStream::connect(("127.0.0.1", self.port)).and_then(|mut s| {
            s.write_all(request.as_bytes())?;
            s.read_to_string(&mut answer)
        });
        assert!(
            done.is_ok() && answer.starts_with("HTTP/1.1 200"),
            "{method} {path}: {done:?}\n{answer}"
        );
        answer
    }

    /// Creates the bucket `name`.
    fn create_bucket(&self, name: &str) {
        self.request("PUT", &format!("/{name}"));
    }

    /// The keys of the objects of `bucket` under `prefix`.
    fn keys(&self, bucket: &str, prefix: &str) -> Vec<String> {
        let answer = self.request("GET", &format!("/{bucket}?list-type=2&prefix={prefix}"));
        answer
            .split("<Key>")
            .skip(1)
            .filter_map(|part| part.split_once("</Key>").map(|(key, _)| key.to_string()))
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        send_signal(self.child.id(), nix::sys::signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        send_signal(self.child.id(), nix::sys::signal::SIGKILL);
        let _ = self.child.wait();
    }
}

/// The environment of a tool talking to the S3 server at `url` with dummy credentials
/// (the user's own AWS files are kept out).
fn s3_env(url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_REGION", "us-east-1".into()),
        ("AWS_ENDPOINT_URL", url.into()),
        ("AWS_ENDPOINT_URL_S3", url.into()),
        ("AWS_CONFIG_FILE", "/dev/null".into()),
        ("AWS_SHARED_CREDENTIALS_FILE", "/dev/null".into()),
    ]
}

/// Runs our `tool` with `args` against the S3 server at `url`.
fn ours_s3(tool: &str, url: &str, args: &[&str]) -> Run {
    let env = s3_env(url);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    Test::ours(tool).args(args).envs(&env).run()
}

/// Like [`ours_s3`], and the run must succeed.
#[track_caller]
fn ok_s3(tool: &str, url: &str, args: &[&str]) -> String {
    let done = ours_s3(tool, url, args);
    assert_eq!(done.code, Some(0), "{tool} {args:?}: {}", done.stderr);
    done.stdout
}

/// A netCDF-4 file with a 40 x 50 variable, attributes and ten more variables (each of
/// them one chunk in a Zarr store: nccopy, as netCDF-C's, writes a Zarr variable this
/// small in one chunk), made by our ncgen in `dir`.
fn input(dir: &Path) -> PathBuf {
    let values: Vec<String> = (0..2000).map(|i| (i * 7 % 1000).to_string()).collect();
    let mut cdl = String::from(
        "netcdf in {\ndimensions:\n  y = 40 ;\n  x = 50 ;\nvariables:\n  int v(y, x) ;\n    \
         v:units = \"m\" ;\n",
    );
    for n in 0..10 {
        cdl.push_str(&format!("  float t{n}(x) ;\n"));
    }
    cdl.push_str("// global attributes:\n  :title = \"object stores\" ;\ndata:\n");
    cdl.push_str(&format!("  v = {} ;\n", values.join(", ")));
    for n in 0..10 {
        let row: Vec<String> = (0..50).map(|i| format!("{}.5", i + n)).collect();
        cdl.push_str(&format!("  t{n} = {} ;\n", row.join(", ")));
    }
    cdl.push_str("}\n");
    let cdl_path = dir.join("in.cdl");
    let nc = dir.join("in.nc");
    std::fs::write(&cdl_path, cdl).unwrap_or_else(|e| panic!("writing the CDL: {e}"));
    let done = Test::ours("ncgen")
        .args(["-4", "-o"])
        .arg(&nc)
        .arg(&cdl_path)
        .run();
    ok("ncgen", &done);
    nc
}

/// Asserts that two outputs are the same, saying where they first differ.
#[track_caller]
fn assert_same(left: &str, right: &str, what: &str) {
    assert!(
        left == right,
        "{what}: they differ at {}",
        first_difference(left, right)
    );
}

/// ncdump's output without its first line (the dataset's name, taken from the path).
fn body(cdl: &str) -> &str {
    cdl.split_once('\n').map_or("", |(_, rest)| rest)
}

#[test]
fn s3_stores_written_read_and_copied_as_local_ones() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("bkt");
    let url = moto.url();
    let nc = input(dir.path());
    let nc = nc.to_string_lossy();
    let reference_dump = ok_s3("ncdump", &url, &[&nc]);
    for (name, options, fragment) in [
        ("nczarr-zstd", &["-F", "*,zstd,3"][..], ""),
        ("zarr-v2", &[][..], "#mode=zarr"),
        ("zarr-v3", &[][..], "#mode=zarr,v3"),
    ] {
        let local = format!(
            "file://{}/{name}.zarr{}",
            dir.path().display(),
            if fragment.is_empty() {
                "#mode=nczarr"
            } else {
                fragment
            }
        );
        let remote = format!("s3://bkt/runs/{name}.zarr{fragment}");
        let mut args: Vec<&str> = options.to_vec();
        args.extend([&*nc, local.as_str()]);
        ok_s3("nccopy", &url, &args);
        let mut args: Vec<&str> = options.to_vec();
        args.extend([&*nc, remote.as_str()]);
        ok_s3("nccopy", &url, &args);
        let local_dump = ok_s3("ncdump", &url, &["-s", &local]);
        let remote_dump = ok_s3("ncdump", &url, &["-s", &remote]);
        assert_same(
            body(&remote_dump),
            body(&local_dump),
            &format!("{name}: ncdump -s"),
        );
        // Back to netCDF-4: as from the local store (and, NCZarr, as the input).
        let from_remote = dir.path().join(format!("{name}-s3.nc"));
        let from_local = dir.path().join(format!("{name}-local.nc"));
        ok_s3("nccopy", &url, &[&remote, &from_remote.to_string_lossy()]);
        ok_s3("nccopy", &url, &[&local, &from_local.to_string_lossy()]);
        let back = ok_s3("ncdump", &url, &[&from_remote.to_string_lossy()]);
        let local_back = ok_s3("ncdump", &url, &[&from_local.to_string_lossy()]);
        assert_same(
            body(&back),
            body(&local_back),
            &format!("{name}: to netCDF-4"),
        );
        if name.starts_with("nczarr") {
            assert_same(body(&back), body(&reference_dump), "NCZarr S3 to netCDF-4");
        }
    }
    // ncgen writes to S3 too.
    let cdl = dir.path().join("in.cdl");
    ok_s3(
        "ncgen",
        &url,
        &["-4", "-o", "s3://bkt/gen.zarr", &cdl.to_string_lossy()],
    );
    let generated = ok_s3("ncdump", &url, &["s3://bkt/gen.zarr"]);
    assert_same(body(&generated), body(&reference_dump), "ncgen to S3");
    // S3 to S3, then the same store through netCDF-C's path-style URL.
    ok_s3(
        "nccopy",
        &url,
        &["s3://bkt/runs/nczarr-zstd.zarr", "s3://bkt/copies/c.zarr"],
    );
    let copied = ok_s3("ncdump", &url, &["s3://bkt/copies/c.zarr"]);
    assert_same(body(&copied), body(&reference_dump), "S3 to S3");
    let path_style = format!("{url}/bkt/copies/c.zarr#mode=nczarr,s3");
    assert_eq!(
        ok_s3("ncdump", &url, &[&path_style]),
        copied,
        "path-style URL"
    );
    // The server, region and keys from a profile (AWS_PROFILE), none in the environment;
    // and unsigned requests (AWS_NO_SIGN_REQUEST), which moto refuses for a private
    // bucket as S3 does.
    let credentials = dir.path().join("credentials");
    let config = dir.path().join("config");
    let written = std::fs::write(
        &credentials,
        "[nctools]\naws_access_key_id = test\naws_secret_access_key = test\n",
    )
    .and_then(|()| {
        std::fs::write(
            &config,
            format!("[profile nctools]\nregion = us-east-1\nendpoint_url = {url}\n"),
        )
    });
    written.unwrap_or_else(|e| panic!("writing the AWS files: {e}"));
    let (credentials, config) = (credentials.to_string_lossy(), config.to_string_lossy());
    let mut profile_env: Vec<(&str, &str)> = [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_S3",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
    ]
    .iter()
    .map(|v| (*v, ""))
    .collect();
    profile_env.extend([
        ("AWS_PROFILE", "nctools"),
        ("AWS_SHARED_CREDENTIALS_FILE", &*credentials),
        ("AWS_CONFIG_FILE", &*config),
    ]);
    let by_profile = Test::ours("ncdump")
        .arg("s3://bkt/copies/c.zarr")
        .envs(&profile_env)
        .run();
    ok("by_profile", &by_profile);
    assert_same(&by_profile.stdout, &copied, "through a profile");
    let no_credentials: Vec<(&str, &str)> = vec![
        ("AWS_ACCESS_KEY_ID", ""),
        ("AWS_SECRET_ACCESS_KEY", ""),
        ("AWS_PROFILE", ""),
        ("AWS_CONFIG_FILE", "/dev/null"),
        ("AWS_SHARED_CREDENTIALS_FILE", "/dev/null"),
        ("AWS_ENDPOINT_URL", &url),
        ("AWS_ENDPOINT_URL_S3", &url),
    ];
    let mut no_sign = s3_env(&url);
    no_sign.push(("AWS_NO_SIGN_REQUEST", "true".into()));
    let no_sign: Vec<(&str, &str)> = no_sign.iter().map(|(k, v)| (*k, v.as_str())).collect();
    for env in [no_credentials, no_sign] {
        let unsigned = Test::ours("ncdump")
            .arg("s3://bkt/copies/c.zarr")
            .envs(&env)
            .run();
        assert_eq!(unsigned.code, Some(1), "{}", unsigned.stderr);
        assert!(
            unsigned.stderr.contains("the request was anonymous"),
            "{}",
            unsigned.stderr
        );
    }
    // A store is replaced as a local one is; other objects are not.
    ok_s3(
        "nccopy",
        &url,
        &["-k", "nc4", &nc, "s3://bkt/copies/c.zarr"],
    );
    assert_eq!(
        body(&ok_s3("ncdump", &url, &["s3://bkt/copies/c.zarr"])),
        body(&reference_dump)
    );
    let refused = ours_s3("nccopy", &url, &[&nc, "s3://bkt/runs"]);
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("holds objects but no Zarr store"),
        "{}",
        refused.stderr
    );
    let onto_input = ours_s3(
        "nccopy",
        &url,
        &["s3://bkt/copies/c.zarr", "s3://bkt/copies/c.zarr/x"],
    );
    assert_eq!(onto_input.code, Some(1), "{}", onto_input.stderr);
    assert!(
        onto_input.stderr.contains("would remove the input"),
        "{}",
        onto_input.stderr
    );
}

/// zarr-python through s3fs: `read STORE` prints v's values as JSON; `write STORE`
/// writes a Zarr v2 group with an int array `w(n)` = 7, 8, 9.
const PY: &str = r#"
import json, os, sys
import numpy as np, zarr
command, store = sys.argv[1], sys.argv[2]
options = {"endpoint_url": os.environ["AWS_ENDPOINT_URL"], "key": "test", "secret": "test"}
if command == "read":
    group = zarr.open_group(store, mode="r", storage_options=options, zarr_format=2)
    print(json.dumps(np.asarray(group["v"][...]).ravel().tolist()))
else:
    group = zarr.open_group(store, mode="w", storage_options=options, zarr_format=2)
    w = group.create_array("w", shape=(3,), dtype="i4", chunks=(2,),
                           attributes={"_ARRAY_DIMENSIONS": ["n"]})
    w[:] = np.array([7, 8, 9], dtype="i4")
"#;

#[test]
fn sharded_stores_go_to_s3_one_object_per_shard() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("shards");
    let url = moto.url();
    let nc = input(dir.path());
    let nc = nc.to_string_lossy();
    // v (40 x 50) in inner chunks of 10 x 10 (-M 0 keeps chunks this small), shards of
    // 2 x 5 of them: two shards, each one object.
    let options = [
        "-M", "0", "-c", "v:10,10", "-F", "v,zstd,3", "--shards", "v:2,5",
    ];
    let local = format!("file://{}/local.zarr#mode=zarr,v3", dir.path().display());
    let remote = "s3://shards/s.zarr#mode=zarr,v3";
    for target in [local.as_str(), remote] {
        let mut args = options.to_vec();
        args.extend([&*nc, target]);
        ok_s3("nccopy", &url, &args);
    }
    assert_eq!(
        moto.keys("shards", "s.zarr/v/c/"),
        ["s.zarr/v/c/0/0", "s.zarr/v/c/1/0"]
    );
    let local_dump = ok_s3("ncdump", &url, &["-s", &local]);
    let remote_dump = ok_s3("ncdump", &url, &["-s", remote]);
    assert!(
        remote_dump.contains("v:_ChunkSizes = 10, 10 ;"),
        "{remote_dump}"
    );
    assert_same(body(&remote_dump), body(&local_dump), "sharded: ncdump -s");
    // To netCDF-4, the inner chunks read through each shard's index with ranged reads.
    let back = dir.path().join("back.nc");
    ok_s3("nccopy", &url, &[remote, &back.to_string_lossy()]);
    let input_data = ok_s3("ncdump", &url, &["-v", "v", &nc]);
    let back_data = ok_s3("ncdump", &url, &["-v", "v", &back.to_string_lossy()]);
    assert_same(
        body(&back_data).split_once("data:").map_or("", |d| d.1),
        body(&input_data).split_once("data:").map_or("", |d| d.1),
        "sharded S3 to netCDF-4",
    );
}

/// The requests a counting proxy forwarded, by method, from its counts file.
fn request_counts(file: &Path) -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (method, n) = line.split_once(' ')?;
            Some((method.to_string(), n.trim().parse().ok()?))
        })
        .collect()
}

#[test]
fn a_shard_is_read_from_s3_in_few_ranged_requests() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("ranged");
    let nc = input(dir.path());
    let nc = nc.to_string_lossy();
    // v (40 x 50) in 200 inner chunks of 2 x 5, shards of 10 x 10 of them: two shards of
    // 100 inner chunks each.
    let options = [
        "-M", "0", "-c", "v:2,5", "-F", "v,zstd,3", "--shards", "v:10,10",
    ];
    let local = format!("file://{}/local.zarr#mode=zarr,v3", dir.path().display());
    let remote = "s3://ranged/s.zarr#mode=zarr,v3";
    for target in [local.as_str(), remote] {
        let mut args = options.to_vec();
        args.extend([&*nc, target]);
        ok_s3("nccopy", &moto.url(), &args);
    }
    assert_eq!(
        moto.keys("ranged", "s.zarr/v/c/"),
        ["s.zarr/v/c/0/0", "s.zarr/v/c/1/0"]
    );
    let (counter, counts) = Server::counting_proxy(&python, dir.path(), &moto);
    let from_s3 = dir.path().join("from-s3.nc");
    ok_s3(
        "nccopy",
        &counter.url(),
        &[remote, &from_s3.to_string_lossy()],
    );
    let requests = request_counts(&counts);
    let from_local = dir.path().join("from-local.nc");
    ok_s3(
        "nccopy",
        &moto.url(),
        &[&local, &from_local.to_string_lossy()],
    );
    let s3_data = ok_s3("ncdump", &moto.url(), &[&from_s3.to_string_lossy()]);
    let local_data = ok_s3("ncdump", &moto.url(), &[&from_local.to_string_lossy()]);
    assert!(s3_data.contains(" v =\n  0, 7, 14, 21,"), "{s3_data}");
    assert_same(
        body(&s3_data),
        body(&local_data),
        "a sharded store read from S3",
    );
    // The whole copy, metadata included, takes fewer requests than one per two inner
    // chunks: a shard's inner chunks are read up to 8 MiB of them at a time, in one
    // ranged GET, with no request for the shard's size before each (reading a batch of
    // inner chunks at a time, a HEAD and a GET each, took 132 requests).
    let total: u64 = requests.iter().map(|(_, n)| n).sum();
    let heads: u64 = requests
        .iter()
        .filter(|(m, _)| m == "HEAD")
        .map(|(_, n)| n)
        .sum();
    assert!(total > 0 && total < 100, "{requests:?}");
    assert!(heads < 20, "{requests:?}");
}

#[test]
fn zarr_python_reads_our_s3_store_and_we_read_its_own() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("bkt");
    let url = moto.url();
    let nc = input(dir.path());
    ok_s3(
        "nccopy",
        &url,
        &[
            "-F",
            "*,zstd,3",
            &nc.to_string_lossy(),
            "s3://bkt/ours.zarr",
        ],
    );
    let env = s3_env(&url);
    let read = run(Command::new(&python)
        .args(["-c", PY, "read", "s3://bkt/ours.zarr"])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str()))));
    ok("zarr-python", &read);
    let expected: Vec<i64> = (0..2000).map(|i| i * 7 % 1000).collect();
    let got: Vec<i64> = serde_json::from_str(read.stdout.trim())
        .unwrap_or_else(|e| panic!("zarr-python's output {:?}: {e}", read.stdout));
    assert_eq!(got, expected, "zarr-python reading our S3 store");
    let wrote = run(Command::new(&python)
        .args(["-c", PY, "write", "s3://bkt/theirs.zarr"])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str()))));
    ok("zarr-python", &wrote);
    let dump = ok_s3("ncdump", &url, &["s3://bkt/theirs.zarr"]);
    assert!(
        dump.contains("int w(n) ;") && dump.contains("w = 7, 8, 9 ;"),
        "{dump}"
    );
}

#[test]
fn a_store_on_a_plain_http_server_reads_as_the_local_one() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let nc = input(dir.path());
    // NCZarr without consolidated metadata: its groups list their members.
    let local = dir.path().join("served.zarr");
    let local_text = format!("file://{}#mode=nczarr,noconsolidated", local.display());
    ok_s3(
        "nccopy",
        "http://127.0.0.1:9",
        &[&nc.to_string_lossy(), &local_text],
    );
    let server = http_server(&python, dir.path());
    let remote = format!("{}/served.zarr#mode=nczarr", server.url());
    let served = ok_s3("ncdump", "http://127.0.0.1:9", &[&remote]);
    let on_disk = ok_s3("ncdump", "http://127.0.0.1:9", &[&local_text]);
    assert_eq!(
        body(&served),
        body(&on_disk),
        "ncdump over HTTP and on disk"
    );
    let write = ours_s3(
        "nccopy",
        "http://127.0.0.1:9",
        &[&nc.to_string_lossy(), &remote],
    );
    assert_eq!(write.code, Some(1), "{}", write.stderr);
    assert!(
        write.stderr.contains("can only be read"),
        "{}",
        write.stderr
    );
}

#[test]
fn wrong_credentials_are_a_clear_error() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), true);
    let nc = input(dir.path());
    for (tool, args) in [
        (
            "nccopy",
            vec![nc.to_string_lossy().into_owned(), "s3://bkt/x.zarr".into()],
        ),
        ("ncdump", vec!["s3://bkt/x.zarr".into()]),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let done = ours_s3(tool, &moto.url(), &args);
        assert_eq!(done.code, Some(1), "{tool}: {}", done.stderr);
        assert!(
            done.stderr.contains("access denied") && done.stderr.contains("AWS_ACCESS_KEY_ID"),
            "{tool}: {}",
            done.stderr
        );
        assert_eq!(done.stderr.lines().count(), 1, "{tool}: {}", done.stderr);
    }
}

#[test]
fn a_missing_bucket_and_a_silent_endpoint_are_said_in_the_users_terms() {
    // Before: object_store's text ("Generic S3 error: ... 404 Not Found: NoSuchBucket",
    // "after 4 retries ... error sending request").
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    let nc = input(dir.path());
    let nc = nc.to_string_lossy().into_owned();
    for (tool, args) in [
        ("nccopy", vec![nc.as_str(), "s3://nobucket/x.zarr"]),
        ("ncdump", vec!["-h", "s3://nobucket/x.zarr"]),
    ] {
        let done = ours_s3(tool, &moto.url(), &args);
        assert_eq!(done.code, Some(1), "{tool}: {}", done.stderr);
        assert!(
            done.stderr
                .contains("the bucket does not exist at that endpoint")
                && done.stderr.contains("s3://nobucket/x.zarr"),
            "{tool}: {}",
            done.stderr
        );
    }
    // A port nothing listens on.
    let closed = format!("http://127.0.0.1:{}", free_port());
    let done = ours_s3("ncdump", &closed, &["-h", "s3://bkt/x.zarr"]);
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    assert!(
        done.stderr
            .contains(&format!("the endpoint {closed} did not answer")),
        "{}",
        done.stderr
    );
}

#[test]
fn a_server_stopped_mid_copy_leaves_no_complete_store_and_500s_are_retried() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("bkt");
    let nc = input(dir.path());
    let nc = nc.to_string_lossy();
    let expected = ok_s3("ncdump", &moto.url(), &[&nc]);
    // Every third request answered 500: retried, the copy is whole.
    let flaky = Server::proxy(&python, dir.path(), &moto, "fail-every", 3);
    ok_s3(
        "nccopy",
        &flaky.url(),
        &["-F", "*,zstd,3", &nc, "s3://bkt/flaky.zarr"],
    );
    let dumped = ok_s3("ncdump", &flaky.url(), &["s3://bkt/flaky.zarr"]);
    assert_same(body(&dumped), body(&expected), "through 500s");
    assert!(
        flaky.output().contains("injected 500"),
        "no fault was injected:\n{}",
        flaky.output()
    );
    // The server goes away after 4 of the 11 chunks.
    let stopping = Server::proxy(&python, dir.path(), &moto, "stop-after-puts", 4);
    let cut = ours_s3("nccopy", &stopping.url(), &[&nc, "s3://bkt/cut.zarr"]);
    assert_eq!(cut.code, Some(1), "{}", cut.stderr);
    assert!(cut.stderr.contains("s3://bkt/cut.zarr"), "{}", cut.stderr);
    assert!(
        stopping.output().contains("injected stop"),
        "{}",
        stopping.output()
    );
    let left = ours_s3("ncdump", &moto.url(), &["s3://bkt/cut.zarr"]);
    assert_eq!(
        left.code,
        Some(1),
        "a store that looks whole was left:\n{}",
        left.stdout
    );
    assert!(
        left.stderr.contains("is not a Zarr store"),
        "{}",
        left.stderr
    );
    let keys = moto.keys("bkt", "cut.zarr/");
    assert!(
        !keys.is_empty(),
        "the chunks written before the stop are left"
    );
    let top: Vec<&String> = keys
        .iter()
        .filter(|k| k.matches('/').count() == 1)
        .collect();
    assert_eq!(
        top,
        ["cut.zarr/.nctools-incomplete"],
        "at the store's top: {keys:?}"
    );
    // Written again, the leftovers are replaced.
    ok_s3("nccopy", &moto.url(), &[&nc, "s3://bkt/cut.zarr"]);
    let again = ok_s3("ncdump", &moto.url(), &["s3://bkt/cut.zarr"]);
    assert_same(
        body(&again),
        body(&expected),
        "written again over the leftovers",
    );
    // A server that refuses writes but still deletes: what was written is removed.
    let refusing = Server::proxy(&python, dir.path(), &moto, "fail-puts-after", 4);
    let failed = ours_s3("nccopy", &refusing.url(), &[&nc, "s3://bkt/failed.zarr"]);
    assert_eq!(failed.code, Some(1), "{}", failed.stderr);
    assert!(
        refusing.output().contains("injected 500 on PUT"),
        "{}",
        refusing.output()
    );
    assert_eq!(
        moto.keys("bkt", "failed.zarr/"),
        Vec::<String>::new(),
        "left behind"
    );
}

#[test]
fn ctrl_c_during_a_copy_to_s3_removes_what_was_written() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("bkt");
    let nc = input(dir.path());
    // After 3 objects, every PUT takes a quarter of a second: the copy is mid-way when
    // the signal comes.
    let slow = Server::proxy(&python, dir.path(), &moto, "slow-puts-after", 3);
    let env = s3_env(&slow.url());
    let mut child = Command::new(crate::support::ours_path("nccopy"))
        .arg(&nc)
        .arg("s3://bkt/stopped.zarr")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start nccopy: {e}"));
    let start = Instant::now();
    while !slow.output().contains("injected delay") && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        !moto.keys("bkt", "stopped.zarr/").is_empty(),
        "nothing was written before the signal"
    );
    send_signal(child.id(), nix::sys::signal::SIGINT);
    let start = Instant::now();
    while child.try_wait().ok().flatten().is_none() && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let done = Run::from(
        child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("nccopy did not finish: {e}")),
    );
    assert_eq!(done.code, Some(130), "{:?}: {}", done.signal, done.stderr);
    assert!(done.stderr.contains("interrupted"), "{}", done.stderr);
    assert_eq!(
        moto.keys("bkt", "stopped.zarr/"),
        Vec::<String>::new(),
        "left behind after Ctrl-C"
    );
}

/// xarray's side of the first "done when" of the object-store work: opens the store with
/// warnings as errors (an unconsolidated store warns) and compares every variable with
/// the netCDF file's, printing `equal` when all are.
const XARRAY_SAME: &str = r#"
import os, sys, warnings
warnings.simplefilter("error")
import numpy as np, xarray as xr
store, nc = sys.argv[1], sys.argv[2]
options = {"endpoint_url": os.environ["AWS_ENDPOINT_URL"], "key": "test", "secret": "test"}
z = xr.open_zarr(store, storage_options=options)
with xr.open_dataset(nc, engine="netcdf4") as n:
    assert sorted(z.variables) == sorted(n.variables), (sorted(z.variables), sorted(n.variables))
    for name in n.variables:
        assert z[name].dims == n[name].dims, (name, z[name].dims, n[name].dims)
        assert np.array_equal(z[name].values, n[name].values), name
print("equal")
"#;

#[test]
fn a_file_with_an_unlimited_time_copied_to_s3_with_zstd_opens_in_xarray_without_warning() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("bucket");
    let url = moto.url();
    let mut cdl = String::from(
        "netcdf big {\ndimensions:\n  time = UNLIMITED ;\n  lat = 6 ;\n  lon = 8 ;\n\
         variables:\n  double time(time) ;\n    time:units = \"days since 2000-01-01\" ;\n  \
         float tas(time, lat, lon) ;\n    tas:units = \"K\" ;\n  float lat(lat) ;\n  \
         float lon(lon) ;\ndata:\n",
    );
    let records = 30;
    let time: Vec<String> = (0..records).map(|t| t.to_string()).collect();
    let tas: Vec<String> = (0..records * 48)
        .map(|i| format!("{}.25", 250 + i % 61))
        .collect();
    cdl.push_str(&format!(
        " time = {} ;\n tas = {} ;\n",
        time.join(", "),
        tas.join(", ")
    ));
    cdl.push_str(
        " lat = -50, -30, -10, 10, 30, 50 ;\n lon = 0, 45, 90, 135, 180, 225, 270, 315 ;\n}\n",
    );
    let cdl_path = dir.path().join("big.cdl");
    let nc = dir.path().join("big.nc");
    std::fs::write(&cdl_path, cdl).unwrap_or_else(|e| panic!("writing the CDL: {e}"));
    let made = Test::ours("ncgen")
        .args(["-4", "-o"])
        .arg(&nc)
        .arg(&cdl_path)
        .run();
    ok("ncgen", &made);
    let nc_text = nc.to_string_lossy();
    ok_s3(
        "nccopy",
        &url,
        &["-F", "*,zstd,3", &nc_text, "s3://bucket/big.zarr"],
    );
    let env = s3_env(&url);
    let read = run(Command::new(&python)
        .args(["-c", XARRAY_SAME, "s3://bucket/big.zarr", &nc_text])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str()))));
    assert_eq!(
        (read.code, read.stdout.trim()),
        (Some(0), "equal"),
        "xarray: {}",
        read.stderr
    );
    // Ours reads it back equal too.
    let back = dir.path().join("back.nc");
    ok_s3(
        "nccopy",
        &url,
        &["s3://bucket/big.zarr", &back.to_string_lossy()],
    );
    let expected = ok_s3("ncdump", &url, &[&nc_text]);
    let got = ok_s3("ncdump", &url, &[&back.to_string_lossy()]);
    assert_same(body(&got), body(&expected), "read back from S3");
}

/// Every object of `bucket` under `prefix` (the prefix cut off) with the SHA-256 of its
/// bytes, read through boto3 (moto's dependency) from the server at `url`.
fn object_digests(python: &Path, url: &str, bucket: &str, prefix: &str) -> Vec<(String, String)> {
    let script = "import boto3, hashlib, sys\n\
        s3 = boto3.client('s3', endpoint_url=sys.argv[1])\n\
        pages = s3.get_paginator('list_objects_v2').paginate(Bucket=sys.argv[2], Prefix=sys.argv[3])\n\
        for page in pages:\n\
        \x20   for o in page.get('Contents', []):\n\
        \x20       body = s3.get_object(Bucket=sys.argv[2], Key=o['Key'])['Body'].read()\n\
        \x20       print(o['Key'][len(sys.argv[3]):], hashlib.sha256(body).hexdigest())\n";
    let env = s3_env(url);
    let done = run(Command::new(python)
        .args(["-c", script, url, bucket, prefix])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str()))));
    assert_eq!(
        done.code,
        Some(0),
        "listing {bucket}/{prefix}: {}",
        done.stderr
    );
    let mut digests: Vec<(String, String)> = done
        .stdout
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, d)| (k.to_string(), d.to_string()))
        .collect();
    digests.sort();
    digests
}

#[test]
fn four_region_writers_at_once_and_appends_fill_s3_stores_equal_to_one_copy() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("bkt");
    let url = moto.url();
    let env = s3_env(&url);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (parts, all) = crate::zarr_regions::inputs(dir.path());
    let filled = "s3://bkt/filled.zarr#mode=zarr";
    let single = "s3://bkt/single.zarr#mode=zarr";
    crate::zarr_regions::fill_from_many_jobs(&parts, filled, &env);
    crate::zarr_regions::nccopy_ok(&[&all.to_string_lossy(), single], &env);
    let ours = object_digests(&python, &url, "bkt", "filled.zarr/");
    let theirs = object_digests(&python, &url, "bkt", "single.zarr/");
    assert!(ours.len() > 2 * crate::zarr_regions::PARTS, "{ours:?}");
    assert_eq!(
        ours, theirs,
        "the objects of the two stores and their bytes"
    );
    let (ours, theirs) = (
        crate::zarr_regions::dump_body(filled, &env),
        crate::zarr_regions::dump_body(single, &env),
    );
    assert_same(&ours, &theirs, "ncdump of the store filled by regions");
    // Appends: chunks, then each document in one PUT; the same objects again.
    let appended = "s3://bkt/appended.zarr#mode=zarr";
    crate::zarr_regions::append_all(&parts, appended, &env);
    let appended = object_digests(&python, &url, "bkt", "appended.zarr/");
    assert_eq!(
        appended,
        theirs_objects(&python, &url),
        "the appended store's objects"
    );
}

/// The objects of the single copy of the 4-process test's input.
fn theirs_objects(python: &Path, url: &str) -> Vec<(String, String)> {
    object_digests(python, url, "bkt", "single.zarr/")
}

#[test]
fn an_append_on_s3_takes_a_lock_object_and_a_second_one_is_refused() {
    // Before: two appends at once both exited 0 and one record was lost; no lock was
    // taken. Now a conditional PUT (If-None-Match: *) makes the lock object, which a
    // second append cannot make.
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("bkt");
    let url = moto.url();
    let env = s3_env(&url);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (parts, _) = crate::zarr_regions::inputs(dir.path());
    let store = "s3://bkt/locked.zarr#mode=zarr";
    crate::zarr_regions::nccopy_ok(&[&parts[0].to_string_lossy(), store], &env);
    let put = "import boto3, sys\n\
        s3 = boto3.client('s3', endpoint_url=sys.argv[1])\n\
        s3.put_object(Bucket='bkt', Key='locked.zarr/.nctools-append.lock', Body=b'held')\n";
    let delete = "import boto3, sys\n\
        s3 = boto3.client('s3', endpoint_url=sys.argv[1])\n\
        s3.delete_object(Bucket='bkt', Key='locked.zarr/.nctools-append.lock')\n";
    let boto = |script: &str| {
        let done = run(Command::new(&python)
            .args(["-c", script, &url])
            .envs(env.iter().copied()));
        ok("done", &done);
    };
    boto(put);
    let part1 = parts[1].to_string_lossy().into_owned();
    let refused = ours_s3("nccopy", &url, &["--append", "time", &part1, store]);
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("another append")
            && refused.stderr.contains(".nctools-append.lock"),
        "{}",
        refused.stderr
    );
    boto(delete);
    crate::zarr_regions::nccopy_ok(&["--append", "time", &part1, store], &env);
    let objects = object_digests(&python, &url, "bkt", "locked.zarr/");
    assert!(
        objects.iter().all(|(key, _)| key != ".nctools-append.lock"),
        "the lock is given back: {objects:?}"
    );
    assert!(objects.iter().any(|(key, _)| key == "t/1.0"), "{objects:?}");
}

/// Python's `http.server` serving `dir` on a free port of 127.0.0.1 (it answers no
/// byte ranges: a ranged GET gets the whole value).
fn http_server(python: &Path, dir: &Path) -> Server {
    let port = free_port();
    let port_text = port.to_string();
    let dir_text = dir.to_string_lossy().into_owned();
    let args = [
        "-m",
        "http.server",
        "-b",
        "127.0.0.1",
        "-d",
        &dir_text,
        &port_text,
    ];
    Server::start(python, &args, &[], port, dir.join("http.log"))
}

/// Red team s35 RA14: the same store named `s3://bkt/x.zarr` (the server from
/// AWS_ENDPOINT_URL) and `http://SERVER/bkt/x.zarr#mode=zarr,s3` was taken for two
/// stores: nccopy from one to the other deleted the input (the output's prefix is
/// emptied first), then failed. A URL that names no server may be on the one the other
/// names, and `localhost` is `127.0.0.1`: both orders are refused, the input kept.
#[test]
fn one_store_named_two_ways_is_not_copied_onto_itself() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("bkt");
    let url = moto.url();
    let nc = input(dir.path());
    ok_s3("nccopy", &url, &[&nc.to_string_lossy(), "s3://bkt/x.zarr"]);
    let before = ok_s3("ncdump", &url, &["s3://bkt/x.zarr"]);
    let http = format!(
        "{}/bkt/x.zarr#mode=nczarr,s3",
        url.replace("127.0.0.1", "localhost")
    );
    for (from, to) in [
        ("s3://bkt/x.zarr", http.as_str()),
        (http.as_str(), "s3://bkt/x.zarr"),
    ] {
        let done = ours_s3("nccopy", &url, &[from, to]);
        assert_eq!(done.code, Some(1), "{from} -> {to}: {}", done.stderr);
        assert!(
            done.stderr.contains("is the input"),
            "{from} -> {to}: {}",
            done.stderr
        );
        let after = ok_s3("ncdump", &url, &["s3://bkt/x.zarr"]);
        assert_same(&before, &after, "the input after the refused copy");
    }
}

/// Red team s35 RA13: a sharded store on a plain HTTP server that answers no byte ranges
/// (python's `http.server` answers a ranged GET with the whole value, as RFC 9110
/// allows) was refused as "probably damaged"; zarr-python reads it. The shard is now
/// read as a stream as far as the ranges need, keeping only their bytes.
#[test]
fn a_sharded_store_on_a_server_without_ranges_reads_as_the_local_one() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let nc = input(dir.path());
    let local = dir.path().join("sh.zarr");
    let local_text = format!("file://{}#mode=zarr,v3", local.display());
    let options = [
        "-M", "0", "-c", "v:10,10", "-F", "v,zstd,3", "--shards", "v:2,5",
    ];
    let mut args = options.to_vec();
    let nc_text = nc.to_string_lossy();
    args.extend([&*nc_text, local_text.as_str()]);
    ok_s3("nccopy", "http://127.0.0.1:9", &args);
    let server = http_server(&python, dir.path());
    let remote = format!("{}/sh.zarr#mode=zarr,v3", server.url());
    let served = ok_s3("ncdump", "http://127.0.0.1:9", &[&remote]);
    let on_disk = ok_s3("ncdump", "http://127.0.0.1:9", &[&local_text]);
    assert_same(
        body(&served),
        body(&on_disk),
        "ncdump over HTTP and on disk",
    );
}

/// Issue 37, point 3: a URL's path is percent-decoded into the keys it names, as every URL
/// library and netCDF-C read it: `s3://bkt/my%20runs/a.zarr` is the store under the keys
/// `my runs/a.zarr/`, on S3 and on a plain HTTP server (whose client encodes the keys
/// again on the wire).
/// Before: the keys were `my%20runs/a.zarr/...`, encoded once more on the wire: the store
/// zarr-python and the AWS CLI see under `my runs/` was not found, and a copy went to
/// keys no other program names that way.
#[test]
fn percent_encoded_paths_name_the_keys_they_decode_to() {
    let Some(python) = python() else { return };
    let dir = scratch();
    let moto = Server::moto(&python, dir.path(), false);
    moto.create_bucket("bkt");
    let url = moto.url();
    let nc = input(dir.path());
    ok_s3(
        "nccopy",
        &url,
        &[&nc.to_string_lossy(), "s3://bkt/my%20runs/a%2Bb.zarr"],
    );
    // The keys under `my runs/` (a space, unencoded) are the store's.
    let keys: Vec<String> = object_digests(&python, &url, "bkt", "my runs/")
        .into_iter()
        .map(|(key, _)| key)
        .collect();
    assert!(keys.contains(&"a+b.zarr/.zgroup".to_string()), "{keys:?}");
    let dump = ok_s3("ncdump", &url, &["s3://bkt/my%20runs/a%2Bb.zarr"]);
    let local = dir.path().join("local.zarr");
    ok_s3(
        "nccopy",
        &url,
        &[&nc.to_string_lossy(), &local.to_string_lossy()],
    );
    let on_disk = ok_s3("ncdump", &url, &[&local.to_string_lossy()]);
    assert_same(
        body(&dump),
        body(&on_disk),
        "S3 store under a decoded prefix",
    );

    // A plain HTTP server: the directory `my dir` holds the store `x y.zarr`.
    let served = dir.path().join("served");
    let store = served.join("my dir").join("x y.zarr");
    std::fs::create_dir_all(served.join("my dir")).unwrap_or_else(|e| panic!("{e}"));
    let store_text = format!("file://{}#mode=nczarr,noconsolidated", store.display());
    ok_s3("nccopy", &url, &[&nc.to_string_lossy(), &store_text]);
    let server = http_server(&python, &served);
    let remote = format!("{}/my%20dir/x%20y.zarr#mode=nczarr", server.url());
    let over_http = ok_s3("ncdump", &url, &[&remote]);
    assert_same(
        body(&over_http),
        body(&on_disk),
        "HTTP store under a decoded path",
    );

    // What decodes to a control character, to bytes that are not UTF-8 or to `..` is
    // refused before any request.
    for bad in [
        "s3://bkt/a%0Ab.zarr",
        "s3://bkt/a%FFb.zarr",
        "s3://bkt/a/%2E%2E/b.zarr",
    ] {
        let run = ours_s3("ncdump", &url, &["-h", bad]);
        assert_eq!(run.code, Some(1), "{bad}: {}", run.stderr);
        assert!(run.stderr.contains("path"), "{bad}: {}", run.stderr);
    }
}
