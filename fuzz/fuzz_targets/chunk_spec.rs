//! Fuzzes nccopy's `-c` chunk spec parser.
//!
//! Run with `cargo fuzz run chunk_spec` from the repository root (see docs/development.md).
//! The input is UTF-8 text, one `-c` argument per line. Checks that nothing panics, that
//! errors render, that what parses is well formed (names not empty, dimension chunk lengths
//! positive, one spec per variable), and that it round-trips: written back as `-c`
//! arguments (every name character escaped) it parses to the same value.
#![no_main]

use chunkspec::{ChunkSpecs, VarChunking};
use libfuzzer_sys::fuzz_target;

/// Every character of `name` behind a backslash: read back as itself whatever it is.
fn escape(name: &str) -> String {
    name.chars().flat_map(|c| ['\\', c]).collect()
}

/// `specs` as `-c` arguments.
fn format_args(specs: &ChunkSpecs) -> Vec<String> {
    let mut args = Vec::new();
    if specs.unchunked {
        args.push("/".to_string());
    }
    if !specs.dims.is_empty() {
        let dims: Vec<String> = specs
            .dims
            .iter()
            .map(|(dim, length)| match length {
                Some(n) => format!("{}/{n}", escape(dim)),
                None => format!("{}/", escape(dim)),
            })
            .collect();
        args.push(dims.join(","));
    }
    for (path, chunking) in &specs.vars {
        let mut text: String = path
            .groups
            .iter()
            .map(|g| format!("/{}", escape(g)))
            .collect();
        text.push('/');
        text.push_str(&escape(&path.name));
        text.push(':');
        match chunking {
            VarChunking::Contiguous => text.push_str("contiguous"),
            VarChunking::Compact => text.push_str("compact"),
            VarChunking::Sizes(sizes) => {
                let sizes: Vec<String> = sizes.iter().map(usize::to_string).collect();
                text.push_str(&sizes.join(","));
            }
        }
        args.push(text);
    }
    args
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let specs = match ChunkSpecs::parse(text.split('\n')) {
        Ok(specs) => specs,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    assert!(
        !specs.unchunked || specs.dims.is_empty(),
        "`/` and dimension specs both kept"
    );
    for (dim, length) in &specs.dims {
        assert!(!dim.is_empty(), "an empty dimension name");
        assert!(
            length.is_none_or(|n| n > 0),
            "dimension {dim:?}: chunk length 0"
        );
    }
    for (i, (path, chunking)) in specs.vars.iter().enumerate() {
        assert!(!path.name.is_empty() && path.groups.iter().all(|g| !g.is_empty()));
        assert!(
            !specs.vars[..i].iter().any(|(p, _)| p == path),
            "{path} twice"
        );
        if let VarChunking::Sizes(sizes) = chunking {
            assert!(!sizes.is_empty(), "{path}: no sizes");
        }
    }
    let args = format_args(&specs);
    match ChunkSpecs::parse(args.iter().map(String::as_str)) {
        Ok(again) => assert_eq!(again, specs, "{text:?} written back as {args:?}"),
        Err(e) => panic!("{text:?} written back as {args:?} does not parse: {e}"),
    }
});
