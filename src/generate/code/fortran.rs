//! Placeholder.

use std::io::Write;

use ncmodel::Dataset;

use super::{GenerateError, Generator, Setup, Slab, Unsupported};

/// Placeholder.
#[derive(Default)]
pub struct FortranGenerator {
    dataset: Option<Dataset>,
}

impl Generator for FortranGenerator {
    fn define(
        &mut self,
        _out: &mut dyn Write,
        dataset: &Dataset,
        _setup: &Setup,
    ) -> Result<(), GenerateError> {
        self.dataset = Some(dataset.clone());
        Err(Unsupported("this language is not written yet".into()).into())
    }
    fn write(&mut self, _out: &mut dyn Write, _slab: &Slab<'_>) -> Result<(), GenerateError> {
        Ok(())
    }
    fn finish(&mut self, _out: &mut dyn Write) -> Result<(), GenerateError> {
        Ok(())
    }
}
