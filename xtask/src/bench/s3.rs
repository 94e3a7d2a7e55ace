//! The local S3 server of the bench's `zarr-s3-*` cases: moto's server
//! (`python -m moto.server`, from the project's .venv) on 127.0.0.1 on a free port, and
//! in front of it the object-store tests' proxy (`tests/data/objstore/fault_proxy.py`)
//! in its counting mode, through which every timed run goes, ours and the peers' alike,
//! so that the requests of each run can be counted by method. Both are started by the
//! first S3 case and stopped when the bench ends. Credentials are dummies.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// The bucket the cases write to and read from.
pub const BUCKET: &str = "bench";

/// Requests by method (GET, PUT, HEAD, POST, DELETE), as the proxy counted them.
pub type RequestCounts = BTreeMap<String, u64>;

/// moto and the counting proxy, stopped when dropped.
#[derive(Debug)]
pub struct S3Server {
    moto: Child,
    proxy: Child,
    moto_port: u16,
    proxy_port: u16,
    counts_file: PathBuf,
    python: PathBuf,
}

/// A port nothing listens on now.
fn free_port() -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").context("no free port on 127.0.0.1")?;
    Ok(listener.local_addr()?.port())
}

/// Starts `python args`, its output in `log`, and waits until `port` takes connections.
fn start(python: &Path, args: &[&str], port: u16, log: &Path) -> Result<Child> {
    let out =
        std::fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
    let mut child = Command::new(python)
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()
        .with_context(|| format!("cannot start {} {args:?}", python.display()))?;
    let deadline = Instant::now() + Duration::from_secs(90);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline || !matches!(child.try_wait(), Ok(None)) {
            stop(&mut child);
            bail!(
                "{} {args:?} did not listen on port {port} (see {})",
                python.display(),
                log.display()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(child)
}

/// Stops `child`: SIGTERM, then SIGKILL after 10 s.
fn stop(child: &mut Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if !matches!(child.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl S3Server {
    /// Starts moto and the counting proxy (the text of its script, `proxy_script`) with
    /// `python`, their logs and the proxy's counts in `dir`, and makes the bucket
    /// [`BUCKET`].
    pub fn start(python: &Path, proxy_script: &str, dir: &Path) -> Result<S3Server> {
        let moto_port = free_port()?;
        let port = moto_port.to_string();
        let mut moto = start(
            python,
            &["-m", "moto.server", "-H", "127.0.0.1", "-p", &port],
            moto_port,
            &dir.join("moto.log"),
        )?;
        let proxy_port = free_port()?;
        let counts_file = dir.join("s3-requests.txt");
        let _ = std::fs::remove_file(&counts_file);
        let proxy_args = [
            "-c",
            proxy_script,
            &proxy_port.to_string(),
            &port,
            "count",
            "0",
            &counts_file.to_string_lossy(),
        ];
        let proxy = match start(python, &proxy_args, proxy_port, &dir.join("proxy.log")) {
            Ok(proxy) => proxy,
            Err(e) => {
                stop(&mut moto);
                return Err(e);
            }
        };
        let server = S3Server {
            moto,
            proxy,
            moto_port,
            proxy_port,
            counts_file,
            python: python.to_path_buf(),
        };
        server.request_moto("PUT", &format!("/{BUCKET}"))?;
        Ok(server)
    }

    /// The endpoint the timed runs use: the counting proxy.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.proxy_port)
    }

    /// The environment of a tool talking to the server at `endpoint` with dummy
    /// credentials (the user's own AWS files kept out).
    pub fn env(endpoint: &str) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", "test".into()),
            ("AWS_SECRET_ACCESS_KEY", "test".into()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_ENDPOINT_URL", endpoint.into()),
            ("AWS_ENDPOINT_URL_S3", endpoint.into()),
            ("AWS_CONFIG_FILE", "/dev/null".into()),
            ("AWS_SHARED_CREDENTIALS_FILE", "/dev/null".into()),
        ]
    }

    /// The requests counted so far (nothing before the first).
    pub fn counts(&self) -> Result<RequestCounts> {
        let text = match std::fs::read_to_string(&self.counts_file) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e).context("cannot read the proxy's counts"),
        };
        parse_counts(&text)
    }

    /// Runs the peers' script in `mode` (`upload` or `delete`) on `url`, straight to moto
    /// (not through the proxy: nothing counted).
    pub fn helper(&self, script: &str, mode: &str, from: &Path, url: &str) -> Result<()> {
        let status = Command::new(&self.python)
            .arg("-c")
            .arg(script)
            .args(["-", mode])
            .arg(from)
            .arg(url)
            .envs(S3Server::env(&format!(
                "http://127.0.0.1:{}",
                self.moto_port
            )))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .with_context(|| format!("cannot run the S3 {mode} of {url}"))?;
        if !status.success() {
            bail!("the S3 {mode} of {url} failed ({status})");
        }
        Ok(())
    }

    /// Sends an unsigned `method path` to moto (which takes it), requiring a 200.
    fn request_moto(&self, method: &str, path: &str) -> Result<()> {
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\n\
             Connection: close\r\n\r\n",
            self.moto_port
        );
        let mut answer = String::new();
        let mut stream = TcpStream::connect(("127.0.0.1", self.moto_port))?;
        stream.write_all(request.as_bytes())?;
        stream.read_to_string(&mut answer)?;
        if !answer.starts_with("HTTP/1.1 200") {
            bail!("moto answered {method} {path} with {answer}");
        }
        Ok(())
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        stop(&mut self.proxy);
        stop(&mut self.moto);
    }
}

/// The proxy's counts file: a line `METHOD COUNT` per method.
fn parse_counts(text: &str) -> Result<RequestCounts> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (method, n) = line
                .split_once(' ')
                .with_context(|| format!("bad line in the proxy's counts: {line:?}"))?;
            let n = n
                .trim()
                .parse()
                .with_context(|| format!("bad count in {line:?}"))?;
            Ok((method.to_string(), n))
        })
        .collect()
}

/// The requests of one run: `after` less `before`, methods with none left out.
pub fn difference(before: &RequestCounts, after: &RequestCounts) -> RequestCounts {
    after
        .iter()
        .map(|(m, n)| {
            (
                m.clone(),
                n.saturating_sub(before.get(m).copied().unwrap_or(0)),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// The total of `counts`.
pub fn total(counts: &RequestCounts) -> u64 {
    counts.values().sum()
}

/// `counts` in a line: `GET 240, HEAD 2, PUT 5`.
pub fn describe(counts: &RequestCounts) -> String {
    if counts.is_empty() {
        return "none".to_string();
    }
    counts
        .iter()
        .map(|(m, n)| format!("{m} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_requests_are_the_difference_of_the_counts_around_it() -> Result<()> {
        let before = parse_counts("GET 3\nPUT 10\n")?;
        let after = parse_counts("GET 7\nHEAD 2\nPUT 10\n")?;
        let run = difference(&before, &after);
        assert_eq!(describe(&run), "GET 4, HEAD 2");
        assert_eq!(total(&run), 6);
        assert_eq!(describe(&RequestCounts::new()), "none");
        assert!(parse_counts("GET x\n").is_err());
        Ok(())
    }
}
