//! Explains filter text: `explain SPECLIST` or `explain -F ARG ...`.
//!
//! Prints each filter in stored order with its name and parameters, or the error with a
//! caret under the offending text (exit 2).

use std::io::Write;

use filterspec::{known, FilterAction, FilterArg, FilterSpec, Pipeline, VarSelection};

fn describe(specs: &[FilterSpec]) -> String {
    let pipeline = Pipeline::from_definitions(specs.iter().cloned());
    let mut lines = vec![format!("stored order: {pipeline}")];
    for f in pipeline.filters() {
        let name = known::by_id(f.id).map_or("unknown filter", |k| k.summary);
        lines.push(format!("  {:>5}  {:<40} params {:?}", f.id, name, f.params));
    }
    lines.join("\n")
}

fn run(args: &[String]) -> Result<String, String> {
    match args {
        [flag, rest @ ..] if flag == "-F" && !rest.is_empty() => {
            let mut out = Vec::new();
            for arg in rest {
                out.push(
                    match filterspec::parse_filter_arg(arg).map_err(|e| e.render())? {
                        FilterArg::GlobalNone => format!("{arg}: -F none (no output filters)"),
                        FilterArg::Select { vars, action } => {
                            let who = match vars {
                                VarSelection::All => "every variable".to_string(),
                                VarSelection::Named(named) => {
                                    let paths: Vec<String> =
                                        named.iter().map(|n| n.path.to_string()).collect();
                                    paths.join(", ")
                                }
                            };
                            match action {
                                FilterAction::None => format!("{arg}: {who}: no output filters"),
                                FilterAction::Specs(specs) => {
                                    format!("{arg}: {who}:\n{}", describe(&specs))
                                }
                            }
                        }
                    },
                );
            }
            Ok(out.join("\n"))
        }
        [spec] => filterspec::parse_spec_list(spec)
            .map(|specs| describe(&specs))
            .map_err(|e| e.render()),
        _ => Err("usage: explain SPECLIST | explain -F ARG...".into()),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (text, code) = match run(&args) {
        Ok(text) => (text, 0),
        Err(text) => (text, 2),
    };
    let mut stream: Box<dyn Write> = if code == 0 {
        Box::new(std::io::stdout())
    } else {
        Box::new(std::io::stderr())
    };
    let _ = writeln!(stream, "{text}");
    std::process::exit(code);
}
