//! Which filters this machine has and where they come from (`--list-filters` on all three
//! tools), and what a file's filters are (`ncdump --filters`).
//!
//! - [`Inventory`]: the plugins of HDF5's search path, loaded once, and for any filter id
//!   where its implementation comes from ([`Availability`]): built into nctools, native to
//!   HDF5, a plugin file, or nowhere;
//! - [`list_filters`]: every known filter (DECISIONS D3) and every plugin found, as an
//!   aligned table or as JSON;
//! - [`inspect_file`]: each filtered variable of a file with its pipeline, parameters
//!   decoded by meaning ([`describe_params`]), availability and stored size.

mod availability;
mod inspect;
mod list;

pub use availability::{Availability, Inventory, Source};
pub use codecs::params::{describe_params, Decoded};
pub use inspect::{inspect_file, VarReport};
pub use list::{filter_entries, list_filters, print_filter_list, FilterEntry};
