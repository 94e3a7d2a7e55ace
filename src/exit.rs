//! Exit codes and error reports shared by the three tools (DECISIONS D7): 0 success,
//! 1 runtime error, 2 usage error; one short paragraph on stderr, no backtraces.

/// Exit code of a runtime error.
pub const EXIT_RUNTIME: i32 = 1;
/// Exit code of a usage error.
pub const EXIT_USAGE: i32 = 2;

/// A failed run: the error and the exit code it maps to.
#[derive(Debug)]
pub struct Failure {
    /// The exit code.
    pub code: i32,
    /// What went wrong.
    pub error: anyhow::Error,
}

impl Failure {
    /// A runtime error (exit 1).
    pub fn runtime(error: anyhow::Error) -> Self {
        Self {
            code: EXIT_RUNTIME,
            error,
        }
    }

    /// A usage error (exit 2).
    pub fn usage(error: anyhow::Error) -> Self {
        Self {
            code: EXIT_USAGE,
            error,
        }
    }

    /// Prints `tool: message` on stderr, every URL's password and query in it redacted,
    /// every terminal control escaped, and returns the exit code.
    pub fn report(&self, tool: &str) -> i32 {
        eprintln!("{tool}: {}", shown(&format!("{:#}", self.error)));
        self.code
    }
}

/// Prints `tool: warning: text` on stderr, every terminal control in it escaped: the one
/// way a warning reaches the terminal, as [`Failure::report`] is for errors.
pub fn warn(tool: &str, text: impl std::fmt::Display) {
    eprintln!("{tool}: warning: {}", shown(&text.to_string()));
}

/// A message as it is shown: the password and query of every URL in it redacted (a URL
/// for libnetcdf, `https://user:pass@host/...`, is named as the user typed it), and every
/// terminal control escaped.
fn shown(text: &str) -> String {
    store::escape_message(&store::redact_url(text))
}

/// Reports a command-line parsing error from clap: help and version go to stdout with
/// exit 0, everything else is a usage error.
pub fn clap_error(error: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    let code = match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
        _ => EXIT_USAGE,
    };
    if code == 0 {
        // Printing can only fail on a closed stream, which is not worth another error.
        let _ = error.print();
        return code;
    }
    // A usage error reads like the tool's other messages: `nccopy: unexpected argument`.
    let text = error.render().to_string();
    let text = match text.strip_prefix("error: ") {
        Some(rest) => format!("{}: {rest}", error_tool_name()),
        None => text,
    };
    // The argument clap quotes is the user's, as typed.
    eprint!("{}", store::escape_message(&text));
    code
}

/// The tool a usage error is about: the running tool, or the program's name.
fn error_tool_name() -> String {
    if let Some(tool) = TOOL.get() {
        return (*tool).to_string();
    }
    std::env::args()
        .next()
        .and_then(|p| {
            std::path::Path::new(&p)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "nctools".to_string())
}

/// The running tool's name, for messages printed below its front end.
static TOOL: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// The running tool's name (`ncdump`, `nccopy`, `ncgen`), as its front end set it with
/// [`install_panic_hook`]; `nctools` before that.
pub fn tool_name() -> &'static str {
    TOOL.get().copied().unwrap_or("nctools")
}

/// Replaces Rust's panic message (a location and a backtrace hint) with one line that
/// says what to do (DECISIONS D7). A panic inside a built-in filter is caught there and
/// becomes a filter error, so it prints nothing.
pub fn install_panic_hook(tool: &'static str) {
    let _ = TOOL.set(tool);
    std::panic::set_hook(Box::new(move |info| {
        if crate::storage::backends::in_filter_callback() {
            return;
        }
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".to_string());
        let what = store::escape_message(&what);
        eprintln!(
            "{tool}: internal error ({what}); this is a bug in nctools: please report it with \
             the command you ran"
        );
    }));
}
