//! Arbitrary bytes as a netCDF classic file: the header parser and the reader must never
//! panic, and must agree: a file the reader opens has a header the parser accepts, and
//! every read of a variable inside its shape succeeds and fills exactly the bytes asked
//! for (values past a cut end read as fill values with `fill_missing`).
#![no_main]

use classic::{ClassicFile, Header, OpenOptions};
use libfuzzer_sys::fuzz_target;

/// The most bytes read per input, so that a header claiming huge variables in a small
/// file (allowed with `fill_missing`) stays quick.
const READ_BUDGET: u64 = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let parsed = Header::parse(data);
    for fill_missing in [false, true] {
        let options = OpenOptions {
            fill_missing,
            ..OpenOptions::default()
        };
        let Ok(file) = ClassicFile::from_bytes("fuzz.nc", data.to_vec(), options) else {
            continue;
        };
        assert!(parsed.is_ok(), "opened, but the header does not parse");
        assert_eq!(file.missing().is_some() && !fill_missing, false);
        let dataset = file.dataset();
        let mut budget = READ_BUDGET;
        for (index, _) in dataset.root.vars.iter().enumerate() {
            let Some(layout) = file.var_layout(index) else {
                panic!("a variable without a layout");
            };
            // The whole variable if small, else its first value.
            let total: u64 = layout
                .shape
                .iter()
                .try_fold(layout.element_size, |acc, &n| acc.checked_mul(n))
                .unwrap_or(u64::MAX);
            let count: Vec<usize> = if total <= budget {
                layout.shape.iter().map(|&n| n as usize).collect()
            } else {
                layout.shape.iter().map(|&n| usize::from(n > 0)).collect()
            };
            budget = budget.saturating_sub(total.min(budget));
            let start = vec![0usize; count.len()];
            let bytes = count.iter().product::<usize>() * layout.element_size as usize;
            let mut out = vec![0u8; bytes];
            if let Err(e) = file.read_native(index, &start, &count, &mut out) {
                panic!("a read inside the shape failed: {e}");
            }
        }
    }
});
