//! Creating the files and directories of a store being written, through the gate of
//! [`store::temporaries`]: once a signal handler has closed it to remove the temporary
//! store, nothing is created there again.

use std::path::Path;

/// [`std::fs::create_dir_all`], through the gate.
pub(crate) fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    store::temporaries::gate(|| std::fs::create_dir_all(dir))
}
