//! The pipelines `--try-filters` tries: a default list, or the user's.

use anyhow::anyhow;
use filterspec::known::SZIP;
use filterspec::FilterSpec;
use ncmodel::Quantize;

/// The default candidates, in filter syntax: each codec's, from the registry (deflate
/// 1/4/9 and zstd 1/3/9/19, each without and with shuffle; szip EC and NN; bzip2 9;
/// blosc with lz4 and with zstd inside; lz4).
pub fn default_candidates() -> Vec<&'static str> {
    codecs::registry::try_candidates().collect()
}

/// One pipeline to try: its text as given, and its filters in stored order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The pipeline in filter syntax, as given (`shuffle|zstd,3`).
    pub text: String,
    /// Its filters, in stored order.
    pub filters: Vec<FilterSpec>,
    /// Quantization applied before the filters (lossy), if any.
    pub quantize: Option<Quantize>,
}

impl Candidate {
    /// The candidate with szip's four words as HDF5 would store them for chunks of the
    /// shape `chunks` and values of `element` bytes in the machine's byte order (the
    /// scanline is the chunk's fastest dimension); szip's filters keep the two words
    /// given where it cannot run on such chunks.
    pub fn for_chunks(&self, element: usize, chunks: &[usize]) -> Candidate {
        let scanline = chunks.last().copied().unwrap_or(1);
        let values = chunks.iter().product::<usize>();
        let big_endian = cfg!(target_endian = "big");
        let filters = self
            .filters
            .iter()
            .map(|f| match f.id {
                SZIP => codecs::szip_hdf5_words(&f.params, element, big_endian, scanline, values)
                    .map_or_else(|| f.clone(), |words| FilterSpec::new(SZIP, words)),
                _ => f.clone(),
            })
            .collect();
        Candidate {
            filters,
            ..self.clone()
        }
    }

    /// How the candidate is shown: the pipeline, after the quantization if there is one.
    pub fn label(&self) -> String {
        match self.quantize {
            Some(q) => format!("{}={} + {}", mode_name(q), q.nsd, self.text),
            None => self.text.clone(),
        }
    }
}

/// The quantize algorithm's name as `--quantize` spells it.
pub fn mode_name(q: Quantize) -> &'static str {
    match q.mode {
        ncmodel::QuantizeMode::BitGroom => "bitgroom",
        ncmodel::QuantizeMode::GranularBitRound => "granularbr",
        ncmodel::QuantizeMode::BitRound => "bitround",
    }
}

/// The candidates of `list` (pipelines separated by `;` or spaces; empty: the default
/// list), each an error that names it if it does not parse.
pub fn parse_candidates(list: &str) -> anyhow::Result<Vec<Candidate>> {
    let texts: Vec<String> = if list.trim().is_empty() {
        default_candidates()
            .iter()
            .map(|t| (*t).to_string())
            .collect()
    } else {
        list.split([';', ' ', '\n'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    };
    texts
        .into_iter()
        .map(|text| {
            let filters = filterspec::parse_spec_list(&text).map_err(|e| {
                anyhow!(
                    "--try-filters: `{text}` is not a filter pipeline: {}; write pipelines \
                     such as 'shuffle|zstd,3;bzip2,9' (separated by `;`)",
                    e.render().trim_end()
                )
            })?;
            Ok(Candidate {
                text,
                filters,
                quantize: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_candidate_parses_and_a_list_splits_on_semicolons() {
        let all = parse_candidates("").unwrap_or_default();
        assert_eq!(all.len(), default_candidates().len());
        assert_eq!(all[3].filters.len(), 2);
        let two = parse_candidates("shuffle|zstd,3; bzip2,9").unwrap_or_default();
        assert_eq!(
            two.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
            ["shuffle|zstd,3", "bzip2,9"]
        );
        match parse_candidates("zstd,3;nosuch,1") {
            Ok(_) => panic!("accepted"),
            Err(e) => assert!(e
                .to_string()
                .contains("`nosuch,1` is not a filter pipeline")),
        }
    }
}
