//! ncgen's data pass: each data entry's values are read as a stream of tokens, converted
//! to the variable's type in bounded batches and written where they belong.

use std::borrow::Cow;
use std::io::BufRead;

use anyhow::{anyhow, bail, Context};
use cdl::parse::{push_constant, Constant, DataEntry, DataReader, DataToken, ParseError, Position};
use ncmodel::{AtomicType, Dataset, Group, TypeRef, Values, Var};
use rayon::prelude::*;
use store::{StoreWriter, VarPath};

use super::chars::CharPacker;
use super::linear::hyperslabs;
use super::nested::read_nested;
use super::user_values::UserValueReader;

/// Values converted and written at a time: bounds memory whatever the variable's size.
const BATCH: usize = 1 << 16;

/// Batches parsed ahead of the one being written.
const PARSED_AHEAD: usize = 2;

/// Writes data entries into the variables of a defined file.
pub struct DataLoader<'a> {
    dataset: &'a Dataset,
    writer: &'a dyn StoreWriter,
}

/// Where a variable's values go: its shape and how many values it holds.
struct SlabTarget<'a> {
    writer: &'a dyn StoreWriter,
    var: VarPath,
    /// Dimension lengths, outermost first (an unlimited outermost one does not matter).
    shape: Vec<usize>,
    /// How many values fit (none when the outermost dimension is unlimited).
    capacity: Option<usize>,
    /// The index of the next value.
    position: usize,
    /// Values given beyond the capacity (dropped, as the reference does).
    excess: usize,
}

impl SlabTarget<'_> {
    /// How many values to gather before a write: whole rows when they are not too long.
    fn batch_len(&self) -> usize {
        let row: usize = self.shape.iter().skip(1).product::<usize>().max(1);
        if row <= BATCH {
            (BATCH / row) * row
        } else {
            BATCH
        }
    }

    /// Moves past `n` values without writing them (they read as the fill value); values
    /// past the capacity count as dropped.
    fn skip(&mut self, n: usize) {
        if let Some(capacity) = self.capacity {
            let room = capacity.saturating_sub(self.position);
            self.excess += n.saturating_sub(room);
            self.position += n.min(room);
        } else {
            self.position += n;
        }
    }

    /// Writes `values` at the current position; values past the capacity are dropped.
    fn write(&mut self, values: &Values) -> anyhow::Result<()> {
        crate::interrupt::Interrupted::check()?;
        let mut n = values.len();
        if let Some(capacity) = self.capacity {
            let room = capacity.saturating_sub(self.position);
            if n > room {
                self.excess += n - room;
                n = room;
            }
        }
        let mut offset = 0;
        for slab in hyperslabs(&self.shape, self.position, n) {
            let count: usize = slab.count.iter().product();
            // Batches are whole rows where possible: then one slab takes them all, uncopied.
            let part = if offset == 0 && count == values.len() {
                Cow::Borrowed(values)
            } else {
                Cow::Owned(values.slice(offset..offset + count))
            };
            self.writer
                .write(&self.var, &slab.start, &slab.count, &part)
                .map_err(|e| anyhow!(e))?;
            offset += count;
        }
        self.position += n;
        Ok(())
    }
}

impl<'a> DataLoader<'a> {
    /// A loader for the file `writer` defined from `dataset`.
    pub fn new(dataset: &'a Dataset, writer: &'a dyn StoreWriter) -> Self {
        Self { dataset, writer }
    }

    /// Reads the values of `entry` and writes them into its variable.
    pub fn load<R: BufRead + Send>(
        &mut self,
        entry: &DataEntry,
        mut reader: DataReader<R>,
    ) -> anyhow::Result<()> {
        let group = find_group(&self.dataset.root, &entry.group_path)
            .ok_or_else(|| anyhow!("data for {}: no such group", entry.var_name))?;
        let var = group
            .var(&entry.var_name)
            .ok_or_else(|| anyhow!("data for {}: no such variable", entry.var_name))?;
        let path = full_path(&entry.group_path, &var.name);
        crash_guard::set_activity(&format!("writing variable {path}"));
        let dims = self.dims(var)?;
        if dims.iter().skip(1).any(|d| d.1) {
            return self
                .load_nested(entry, var, &dims, &mut reader)
                .with_context(|| format!("variable {path}"));
        }
        let mut target = self.target(entry, &dims);
        let result = match var.type_ref {
            TypeRef::Atomic(AtomicType::Char) => {
                load_chars(&mut reader, &mut target, fill_is_nul(var))
            }
            TypeRef::Atomic(t) => load_atomic(&mut reader, &mut target, t, fill_value(var, t)),
            TypeRef::User(_) => {
                let var_fill = var
                    .atts
                    .iter()
                    .rev()
                    .find(|a| a.name == "_FillValue")
                    .and_then(|a| match &a.values {
                        Values::User(v) if v.len() == 1 => v.first().cloned(),
                        _ => None,
                    });
                let mut values = UserValueReader::new(self.dataset, var.type_ref, var_fill);
                let decoded_bytes = self.dataset.decoded_bytes(var.type_ref);
                let loaded = load_user(&mut reader, &mut target, &mut values, decoded_bytes);
                for note in values.take_dropped() {
                    crate::exit::warn(
                        "ncgen",
                        format_args!("variable {path}: {note}, as the reference ncgen does"),
                    );
                }
                loaded
            }
        };
        result.with_context(|| format!("variable {path}"))?;
        if target.excess > 0 && matches!(var.type_ref, TypeRef::User(_)) {
            // The reference refuses these ("Datalist longer than ...").
            bail!(
                "variable {path}: the data has {} value(s) more than the variable holds",
                target.excess
            );
        }
        if target.excess > 0 {
            crate::exit::warn(
                "ncgen",
                format_args!(
                    "variable {path}: {} value(s) beyond its size were ignored",
                    target.excess
                ),
            );
        }
        Ok(())
    }

    /// Where the values of `entry` go, given the variable's dimensions (length,
    /// unlimited); an unlimited outermost dimension grows with the data.
    fn target<'e>(&self, entry: &'e DataEntry, dims: &[(usize, bool)]) -> SlabTarget<'e>
    where
        'a: 'e,
    {
        let unlimited_first = dims.first().is_some_and(|d| d.1);
        SlabTarget {
            writer: self.writer,
            var: VarPath::new(entry.group_path.iter().cloned(), entry.var_name.clone()),
            shape: dims
                .iter()
                .map(|&(len, unlimited)| if unlimited { 1 } else { len })
                .collect(),
            capacity: (!unlimited_first).then(|| dims.iter().map(|d| d.0).product()),
            position: 0,
            excess: 0,
        }
    }

    /// The variable's dimensions: length (0 for unlimited ones) and whether unlimited.
    fn dims(&self, var: &Var) -> anyhow::Result<Vec<(usize, bool)>> {
        var.dim_ids
            .iter()
            .map(|id| {
                let dim = self
                    .dataset
                    .dim(*id)
                    .ok_or_else(|| anyhow!("variable {}: unknown dimension", var.name))?;
                Ok((if dim.unlimited { 0 } else { dim.len }, dim.unlimited))
            })
            .collect()
    }

    /// Writes the data of a variable with an unlimited dimension after the first.
    fn load_nested<R: BufRead + Send>(
        &self,
        entry: &DataEntry,
        var: &Var,
        dims: &[(usize, bool)],
        reader: &mut DataReader<R>,
    ) -> anyhow::Result<()> {
        let TypeRef::Atomic(t) = var.type_ref else {
            bail!(
                "data of a user-defined type for an unlimited dimension that is not the \
                 first is not supported yet by nctools' ncgen"
            );
        };
        let data = read_nested(reader, dims, t, &fill_value(var, t))?;
        let mut target = self.target(entry, dims);
        target.capacity = Some(data.shape.iter().product());
        target.shape = data.shape;
        target.write(&data.values)
    }
}

/// The value `_` stands for in the data of a variable of atomic type `t`.
fn fill_value(var: &Var, t: AtomicType) -> Values {
    var.atts
        .iter()
        .rev()
        .find(|a| a.name == "_FillValue" && a.values.len() == 1)
        .map(|a| a.values.clone())
        .filter(|v| std::mem::discriminant(v) == std::mem::discriminant(&Values::empty(t)))
        .unwrap_or_else(|| Values::default_fill(t))
}

fn load_atomic<R: BufRead + Send>(
    reader: &mut DataReader<R>,
    target: &mut SlabTarget,
    t: AtomicType,
    fill: Values,
) -> anyhow::Result<()> {
    let batch_len = target.batch_len();
    let parse = move |emit: &mut dyn FnMut(Values) -> bool| -> anyhow::Result<()> {
        let mut batches = Batches {
            values: Values::empty(t),
            t,
            batch_len,
            emit,
        };
        let in_parallel = rayon::current_num_threads() > 1;
        loop {
            if in_parallel {
                if let Some(converted) = convert_plain_lines(reader, t, &fill)? {
                    for (values, failure) in converted {
                        if !batches.push(&values) {
                            return Ok(());
                        }
                        if let Some(e) = failure {
                            return Err(e);
                        }
                    }
                    continue;
                }
            }
            let Some(token) = next_token(reader)? else {
                break;
            };
            push_token(&mut batches.values, token, t, &fill)?;
            if !batches.emit_full() {
                return Ok(());
            }
        }
        batches.finish();
        Ok(())
    };
    beside_parsing(parse, |values| target.write(&values))
}

/// Converts the value of `token` to type `t` and appends it (`_` appends `fill`).
fn push_token(
    values: &mut Values,
    token: DataToken,
    t: AtomicType,
    fill: &Values,
) -> anyhow::Result<()> {
    let (constant, at) = match token {
        DataToken::Constant(c, at) => (c, at),
        DataToken::Open(at) | DataToken::Close(at) => {
            bail!(
                "{}: expected a value of type {}, found braces",
                place(&at),
                t.cdl_name()
            )
        }
    };
    push_constant(values, &constant, t).map_err(|m| anyhow!("{}: {m}", place(&at)))?;
    if constant == Constant::Fill {
        let last = values.len() - 1;
        values.set_from(last, fill, 0);
    }
    Ok(())
}

/// Values gathered into batches of `batch_len` (the last one shorter), each handed to
/// `emit` (false: stop).
struct Batches<'e> {
    values: Values,
    t: AtomicType,
    batch_len: usize,
    emit: &'e mut dyn FnMut(Values) -> bool,
}

impl Batches<'_> {
    /// Hands over the batch if it is full; false if told to stop.
    fn emit_full(&mut self) -> bool {
        if self.values.len() < self.batch_len {
            return true;
        }
        let full = std::mem::replace(&mut self.values, Values::empty(self.t));
        (self.emit)(full)
    }

    /// Appends `more`, handing over each batch it fills; false if told to stop.
    fn push(&mut self, more: &Values) -> bool {
        let mut from = 0;
        while from < more.len() {
            let take = (self.batch_len - self.values.len()).min(more.len() - from);
            if from == 0 && take == more.len() {
                self.values.extend_from(more);
            } else {
                self.values.extend_from(&more.slice(from..from + take));
            }
            from += take;
            if !self.emit_full() {
                return false;
            }
        }
        true
    }

    /// Hands over what is left.
    fn finish(self) {
        if !self.values.is_empty() {
            (self.emit)(self.values);
        }
    }
}

/// Plain lines of data taken ahead of the parser at a time, and the most bytes in each.
const PLAIN_BLOCKS: usize = 16;
const PLAIN_BLOCK_BYTES: usize = 64 * 1024;

/// Values of a block of plain lines, and the error that ended it early, if one did.
type ConvertedBlock = (Values, Option<anyhow::Error>);

/// When the data list goes on with plain lines (numbers separated by commas), takes up
/// to [`PLAIN_BLOCKS`] blocks of them and converts these on every thread: each block's
/// values, in order, with the error that stopped it (the same error at the same place as
/// token by token). `None` when the next line is not plain.
fn convert_plain_lines<R: BufRead>(
    reader: &mut DataReader<R>,
    t: AtomicType,
    fill: &Values,
) -> anyhow::Result<Option<Vec<ConvertedBlock>>> {
    let mut blocks = Vec::new();
    while blocks.len() < PLAIN_BLOCKS {
        let mut text = Vec::with_capacity(PLAIN_BLOCK_BYTES);
        match reader
            .take_plain_lines(PLAIN_BLOCK_BYTES, &mut text)
            .map_err(syntax_error)?
        {
            Some(at) => blocks.push((text, at)),
            None => break,
        }
    }
    if blocks.is_empty() {
        return Ok(None);
    }
    let source = reader.source_name().to_string();
    Ok(Some(
        blocks
            .par_iter()
            .map(|(text, at)| {
                let mut lines = DataReader::plain_lines(text.as_slice(), &source, *at);
                let mut values = Values::empty(t);
                loop {
                    match next_token(&mut lines) {
                        Ok(Some(token)) => {
                            if let Err(e) = push_token(&mut values, token, t, fill) {
                                return (values, Some(e));
                            }
                        }
                        Ok(None) => return (values, None),
                        Err(e) => return (values, Some(e)),
                    }
                }
            })
            .collect(),
    ))
}

/// Runs `parse`, which hands batches to its argument (false: stop), and `write` on each
/// batch, in order: on two threads when the pool has more than one (parsing on a thread
/// of its own, a few batches ahead, while this one converts nothing and writes, so that
/// encoding and writing overlap parsing), else on this one. The result is the first
/// failure of either, as if they ran one after the other.
fn beside_parsing<T: Send>(
    parse: impl FnOnce(&mut dyn FnMut(T) -> bool) -> anyhow::Result<()> + Send,
    mut write: impl FnMut(T) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut failure = None;
    if rayon::current_num_threads() <= 1 {
        let parsed = parse(&mut |batch| match write(batch) {
            Ok(()) => true,
            Err(e) => {
                failure = Some(e);
                false
            }
        });
        return failure.map_or(parsed, Err);
    }
    let (sender, batches) = std::sync::mpsc::sync_channel::<T>(PARSED_AHEAD);
    std::thread::scope(|scope| {
        let parser = scope.spawn(move || parse(&mut |batch| sender.send(batch).is_ok()));
        for batch in batches.iter() {
            if let Err(e) = write(batch) {
                failure = Some(e);
                break;
            }
        }
        // Unblocks a parser waiting to hand over a batch no one will write.
        drop(batches);
        let parsed = parser
            .join()
            .unwrap_or_else(|_| Err(anyhow!("the CDL parser stopped on an internal error")));
        failure.map_or(parsed, Err)
    })
}

/// `line L, column C`, for messages about data values (the file name and variable are
/// added around them).
pub fn place(at: &Position) -> String {
    format!("line {}, column {}", at.line, at.col)
}

/// The next token of a data entry; a syntax error reads like the other data errors.
pub fn next_token<R: BufRead>(reader: &mut DataReader<R>) -> anyhow::Result<Option<DataToken>> {
    reader.next().map_err(syntax_error)
}

/// A syntax error in data, read like the other data errors.
fn syntax_error(e: ParseError) -> anyhow::Error {
    let at = Position {
        offset: 0,
        line: e.line,
        col: e.col,
    };
    match &e.hint {
        Some(hint) => anyhow!("{}: {} ({hint})", place(&at), e.message),
        None => anyhow!("{}: {}", place(&at), e.message),
    }
}

/// Writes char data; with `skip_padding` (the variable's fill value is NUL), the NULs
/// padding a string to its rows are not written when they are many: they read as the
/// fill value (red team s35 RC2: three letters on records of 2,000,000,000 characters
/// wrote a 5.86 GB file of NULs from a 111-byte CDL).
fn load_chars<R: BufRead>(
    reader: &mut DataReader<R>,
    target: &mut SlabTarget,
    skip_padding: bool,
) -> anyhow::Result<()> {
    let mut packer = CharPacker::new(&target.shape);
    let batch_len = target.batch_len();
    while let Some(token) = next_token(reader)? {
        match token {
            DataToken::Constant(Constant::Str(text), _) => packer.push_str(&text),
            DataToken::Constant(Constant::Char(c), _) => packer.push_byte(c),
            DataToken::Constant(Constant::Fill, _) => packer.push_byte(0),
            DataToken::Constant(other, at) => {
                // Like the reference: a warning, and the value is left out.
                crate::exit::warn(
                    "ncgen",
                    format_args!(
                        "{}: a {} in char data is not a string or character constant; ignored",
                        place(&at),
                        other.describe()
                    ),
                );
            }
            DataToken::Open(at) | DataToken::Close(at) => {
                bail!("{}: expected a string, found braces", place(&at))
            }
        }
        if skip_padding && packer.padding() >= batch_len {
            let bytes = packer.take_bytes();
            if !bytes.is_empty() {
                target.write(&Values::Char(bytes))?;
            }
            target.skip(packer.take_padding());
        }
        while packer.pending() >= batch_len {
            target.write(&Values::Char(packer.take_at_most(batch_len)))?;
        }
    }
    while packer.pending() > 0 {
        target.write(&Values::Char(packer.take_at_most(batch_len)))?;
    }
    if target.excess > 0 {
        bail!(
            "the strings hold {} character(s) more than the variable's {} (each string \
             starts a new row of the last dimension)",
            target.excess,
            target.capacity.unwrap_or(0)
        );
    }
    Ok(())
}

/// Whether the fill value of the char variable `var` is NUL: netCDF's default, or a
/// `_FillValue` of NUL.
fn fill_is_nul(var: &Var) -> bool {
    match var
        .atts
        .iter()
        .find(|a| a.name == "_FillValue")
        .map(|a| &a.values)
    {
        None => true,
        Some(Values::Char(fill)) => fill.first().is_none_or(|c| *c == 0),
        Some(_) => false,
    }
}

/// The decoded bytes of user-type values ncgen gathers before a write: the values of a
/// variable are never held whole (red team s34 RH5: 64 values of 16 MB each, on an
/// unlimited dimension the header check could not count, took 2.07 GB).
const USER_BATCH_BYTES: usize = 32 << 20;

fn load_user<R: BufRead>(
    reader: &mut DataReader<R>,
    target: &mut SlabTarget,
    values: &mut UserValueReader,
    decoded_bytes: usize,
) -> anyhow::Result<()> {
    let batch_len =
        (USER_BATCH_BYTES / decoded_bytes.max(1)).clamp(1, target.batch_len().min(4096));
    let mut batch = Vec::with_capacity(batch_len);
    while let Some(value) = values.next_value(reader)? {
        batch.push(value);
        if batch.len() == batch_len {
            target.write(&Values::User(std::mem::take(&mut batch)))?;
        }
    }
    // Like the reference, the rest of the last record (or of the variable) gets the
    // type's fill values: the library's own fill for user types is all zero bytes.
    let row: usize = target.shape.iter().skip(1).product::<usize>().max(1);
    let end = match target.capacity {
        Some(capacity) => capacity,
        None => (target.position + batch.len()).div_ceil(row) * row,
    };
    while target.position + batch.len() < end {
        batch.push(values.fill_value(values.type_ref()));
        if batch.len() == batch_len {
            target.write(&Values::User(std::mem::take(&mut batch)))?;
        }
    }
    if !batch.is_empty() {
        target.write(&Values::User(batch))?;
    }
    Ok(())
}

fn find_group<'g>(root: &'g Group, path: &[String]) -> Option<&'g Group> {
    path.iter()
        .try_fold(root, |g, name| g.groups.iter().find(|c| &c.name == name))
}

fn full_path(group_path: &[String], name: &str) -> String {
    let mut path = String::new();
    for g in group_path {
        path.push('/');
        path.push_str(g);
    }
    path.push('/');
    path.push_str(name);
    path
}
