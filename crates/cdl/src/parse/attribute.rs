//! Attribute definitions: `v:name = values ;`, `:name = ...`, typed forms, and the
//! conversion of their values (atomic and user-defined types).

use std::io::BufRead;

use ncmodel::{
    check_values, field_len, AtomicType, Attribute, CompoundField, TypeId, TypeRef, UserType,
    UserTypeKind, Value, Values,
};

use super::constant::{Constant, DataToken};
use super::convert::{convert_constants, infer_type, push_constant};
use super::data::DataList;
use super::error::{ErrorKind, ParseError, Position};
use super::fields::{enum_value, fit_field, is_char_constant, missing_fields};
use super::header::Parser;
use super::lexer::Token;
use super::site::{owner_path, AttributeSite};

/// A parsed value list: constants and brace-enclosed sublists.
#[derive(Debug, Clone)]
enum Item {
    Const(Constant, Position),
    List(Vec<Item>, Position),
}

impl Item {
    fn pos(&self) -> Position {
        match self {
            Item::Const(_, p) | Item::List(_, p) => *p,
        }
    }
}

/// A conversion failure at a position.
type Failure = (Position, String);

impl<R: BufRead> Parser<R> {
    /// The rest of an attribute definition after its `:` (the `;` is left).
    pub(crate) fn attribute(
        &mut self,
        var: Option<String>,
        ty: Option<TypeRef>,
        start: &Token,
    ) -> Result<(), ParseError> {
        let (name, name_tok) = self.name("an attribute name after `:`")?;
        if name.starts_with('_') {
            // Noted while its line is still buffered, for errors found after parsing.
            let len = if start.pos.line == name_tok.pos.line {
                (name_tok.pos.col + name_tok.len as u32).saturating_sub(start.pos.col)
            } else {
                name_tok.len as u32
            };
            let mut at = ParseError::new(ErrorKind::BadValue, start.pos, "").with_len(len as usize);
            self.lex.input.decorate(&mut at, start.pos);
            let owner = owner_path(&self.scope.path(), var.as_deref());
            self.sites.push(AttributeSite::new(owner, name.clone(), at));
        }
        self.expect(b'=', "after the attribute name")?;
        let items = self.value_list()?;
        let var_type = var
            .as_ref()
            .and_then(|v| self.scope.current_ref().var(v))
            .map(|v| v.type_ref);
        let target = match (ty, var_type) {
            (Some(t), _) => Some(t),
            (None, Some(vt)) if name == "_FillValue" => Some(vt),
            _ => None,
        };
        let mut converter = Converter {
            types: &self.scope.types,
            compound_sizes: &self.scope.compound_sizes,
            dropped: Vec::new(),
            user_bytes: &mut self.user_bytes,
            covered: false,
        };
        let converted = match target {
            Some(t) => converter
                .items(&items, t)
                .and_then(|v| {
                    // Never fails once the values are fitted: the last check before
                    // libnetcdf lays them out in memory by their type alone.
                    check_values(converter.types, t, &v).map_err(|m| {
                        let at = items.first().map_or(name_tok.pos, Item::pos);
                        (at, format!("the value does not fit its type ({m})"))
                    })?;
                    Ok(v)
                })
                .map(|v| (t, v)),
            None => untyped(&items),
        };
        let dropped = std::mem::take(&mut converter.dropped);
        for (pos, message) in dropped {
            let owner = var.as_deref().unwrap_or("");
            self.warnings.push(format!(
                "{}:{}:{}: attribute {owner}:{name}: {message}, as the reference ncgen does",
                self.lex.input.source_name(),
                pos.line,
                pos.col
            ));
        }
        let (type_ref, values) = match converted {
            Ok(ok) => ok,
            Err((pos, msg)) => {
                let mut e = ParseError::new(
                    ErrorKind::BadValue,
                    pos,
                    format!("bad value for attribute `{name}`: {msg}"),
                );
                self.lex.input.decorate(&mut e, pos);
                if pos.line == name_tok.pos.line && target.is_none() {
                    e = e.with_hint(
                        "give the attribute a type, like `int64 v:att = ...` or `string :att = ...`",
                    );
                }
                return Err(e);
            }
        };
        let att = Attribute {
            name,
            type_ref,
            values,
        };
        let group = self.scope.current();
        match var {
            Some(v) => {
                if let Some(var) = group.vars.iter_mut().find(|x| x.name == v) {
                    var.atts.push(att);
                }
            }
            None => group.atts.push(att),
        }
        Ok(())
    }

    /// A value list up to (and including) its `;`, as a tree.
    fn value_list(&mut self) -> Result<Vec<Item>, ParseError> {
        let mut list = DataList::new();
        let mut stack: Vec<(Vec<Item>, Position)> = vec![(Vec::new(), Position::START)];
        while let Some(tok) = list.step(&mut self.lex)? {
            match tok {
                DataToken::Constant(c, pos) => {
                    if let Some(top) = stack.last_mut() {
                        top.0.push(Item::Const(c, pos));
                    }
                }
                DataToken::Open(pos) => stack.push((Vec::new(), pos)),
                DataToken::Close(_) => {
                    if let Some((items, pos)) = stack.pop() {
                        if let Some(top) = stack.last_mut() {
                            top.0.push(Item::List(items, pos));
                        }
                    }
                }
            }
        }
        // The list consumed the `;`: give it back for the statement to consume.
        self.unread_semicolon();
        Ok(stack.pop().map(|(items, _)| items).unwrap_or_default())
    }
}

/// Converts an untyped attribute's values: the type comes from the constants.
fn untyped(items: &[Item]) -> Result<(TypeRef, Values), Failure> {
    let mut constants = Vec::with_capacity(items.len());
    let mut positions = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Item::Const(c, p) => {
                constants.push(c.clone());
                positions.push(*p);
            }
            Item::List(_, p) => {
                return Err((
                    *p,
                    "braces need a typed attribute of a user-defined type".into(),
                ))
            }
        }
    }
    let at = |i: usize| positions.get(i).copied().unwrap_or(Position::START);
    let t = infer_type(&constants).map_err(|e| (at(e.index), e.message))?;
    let values = convert_constants(&constants, t).map_err(|e| (at(e.index), e.message))?;
    Ok((TypeRef::Atomic(t), values))
}

/// Refuses attributes whose values of opaque and compound types take `bytes` in all
/// (`ut` the type of the value that goes over), more than one value of a user-defined
/// type may take when read ([`ncmodel::limits::value_cap`]): a few bytes of CDL such as
/// `0x0, 0x0, ...` of a 2 GiB opaque type, or `{"a"}` of a compound with a 1 GB char
/// field, in one attribute or many, must not become gigabytes in memory (two attributes
/// of one 1.5 GB opaque value each took 1.46 GB before the second was refused; two values
/// of that compound, 3.9 GB and 107 s).
fn user_limit(at: &Position, ut: &UserType, bytes: u128) -> Result<(), Failure> {
    let limit = ncmodel::limits::value_cap();
    if bytes > limit as u128 {
        let kind = if matches!(ut.kind, UserTypeKind::Opaque) {
            "opaque"
        } else {
            "compound"
        };
        return Err((
            *at,
            format!(
                "the attribute's values of the {kind} type `{}` take {bytes} bytes, more \
                 than the limit of {limit} for the opaque and compound values of all \
                 attributes (the value limit, a sixteenth of the chunk limit, which {} \
                 raises)",
                ut.name,
                ncmodel::limits::CHUNK_LIMIT_VARIABLE
            ),
        ));
    }
    Ok(())
}

/// Converts attribute values of user-defined types, noting the values it drops.
struct Converter<'s> {
    types: &'s [UserType],
    /// The size of one value of each compound type.
    compound_sizes: &'s std::collections::HashMap<TypeId, u128>,
    /// Values dropped as the reference drops them: where, and what.
    dropped: Vec<(Position, String)>,
    /// The bytes of the opaque and compound values built so far in the whole CDL, each
    /// at its type's size (an opaque constant is padded to it, a compound's char fields
    /// and left-out fields filled).
    user_bytes: &'s mut u128,
    /// Whether the value being built is a part of a value already counted in
    /// `user_bytes` (a field of a compound; not an element of a vlen, which its parent's
    /// size does not include).
    covered: bool,
}

impl Converter<'_> {
    /// Converts items to values of type `t` (atomic or user-defined).
    fn items(&mut self, items: &[Item], t: TypeRef) -> Result<Values, Failure> {
        match t {
            TypeRef::Atomic(a) => {
                let mut out = Values::empty(a);
                push_flat(&mut out, items, a)?;
                Ok(out)
            }
            TypeRef::User(id) => {
                // Refused before any value is built, when the count alone says so.
                let sized = self.types.iter().find(|t| t.id == id);
                if let (Some(ut), Some(first), false) = (sized, items.first(), self.covered) {
                    let wanted = items.len() as u128 * self.counted_size(ut);
                    user_limit(&first.pos(), ut, self.user_bytes.saturating_add(wanted))?;
                }
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.user_value(item, id)?);
                }
                Ok(Values::User(out))
            }
        }
    }

    /// Counts one more value of the opaque or compound type `ut`, unless it is a part of
    /// a value already counted (see [`user_limit`]).
    fn take_value(&mut self, at: &Position, ut: &UserType) -> Result<(), Failure> {
        if self.covered {
            return Ok(());
        }
        *self.user_bytes = self.user_bytes.saturating_add(self.counted_size(ut));
        user_limit(at, ut, *self.user_bytes)
    }

    /// The bytes one value of `ut` counts against [`user_limit`]: an opaque's or a
    /// compound's size, which a few bytes of CDL fill (an opaque constant is padded to
    /// it, a compound's char fields and left-out fields filled); 0 for an enum's value,
    /// a few bytes, and a vlen, whose elements are counted each.
    fn counted_size(&self, ut: &UserType) -> u128 {
        match ut.kind {
            UserTypeKind::Opaque => ut.size as u128,
            UserTypeKind::Compound { .. } => self
                .compound_sizes
                .get(&ut.id)
                .copied()
                .unwrap_or(u128::MAX),
            UserTypeKind::Enum { .. } | UserTypeKind::Vlen { .. } => 0,
        }
    }

    /// Builds with `covered` set to `covered`, then restores it.
    fn building<T>(&mut self, covered: bool, build: impl FnOnce(&mut Self) -> T) -> T {
        let was = std::mem::replace(&mut self.covered, covered);
        let built = build(self);
        self.covered = was;
        built
    }

    /// One value of the user type `id`.
    fn user_value(&mut self, item: &Item, id: TypeId) -> Result<Value, Failure> {
        let types = self.types;
        let Some(ut) = types.iter().find(|t| t.id == id) else {
            return Err((item.pos(), "unknown type".into()));
        };
        match (&ut.kind, item) {
            (UserTypeKind::Enum { members, .. }, Item::Const(Constant::Fill, _)) => {
                Ok(Value::Enum(members.first().map_or(0, |m| m.1)))
            }
            (UserTypeKind::Enum { .. }, Item::Const(c, p)) => {
                enum_value(ut, c).map(Value::Enum).map_err(|m| (*p, m))
            }
            (UserTypeKind::Opaque, Item::Const(c, p)) => match c {
                Constant::Opaque(bytes) => {
                    let mut b = bytes.clone();
                    if b.len() > ut.size {
                        // As the reference: the constant is cut to the type's size.
                        self.dropped.push((
                            *p,
                            format!(
                                "opaque constant of {} bytes cut to the {} of `{}`",
                                b.len(),
                                ut.size,
                                ut.name
                            ),
                        ));
                    }
                    self.take_value(p, ut)?;
                    b.resize(ut.size, 0);
                    Ok(Value::Opaque(b))
                }
                Constant::Fill => {
                    self.take_value(p, ut)?;
                    Ok(Value::Opaque(vec![0; ut.size]))
                }
                other => Err((
                    *p,
                    format!(
                        "expected an opaque constant `0x...`, found {}",
                        other.describe()
                    ),
                )),
            },
            (UserTypeKind::Vlen { base }, Item::List(items, _)) => {
                // A vlen's elements are not in its parent's size: counted each.
                let elements = self.building(false, |this| this.items(items, *base))?;
                Ok(Value::Vlen(elements))
            }
            (
                UserTypeKind::Vlen {
                    base: TypeRef::Atomic(AtomicType::Char),
                },
                Item::Const(c @ Constant::Str(_), p),
            ) => {
                let mut out = Values::empty(AtomicType::Char);
                push_constant(&mut out, c, AtomicType::Char).map_err(|m| (*p, m))?;
                Ok(Value::Vlen(out))
            }
            (UserTypeKind::Compound { fields }, Item::List(items, p)) => {
                self.take_value(p, ut)?;
                if items.len() > fields.len() {
                    return Err((
                        items[fields.len()].pos(),
                        format!(
                            "more values than the {} fields of `{}`",
                            fields.len(),
                            ut.name
                        ),
                    ));
                }
                let mut out = Vec::with_capacity(fields.len());
                for (f, item) in fields.iter().zip(items) {
                    let given = self.building(true, |this| this.field_values(&ut.name, f, item))?;
                    let (values, dropped) = fit_field(types, &ut.name, f, given)
                        .map_err(|e| (item.pos(), e.to_string()))?;
                    if dropped > 0 {
                        self.dropped.push((
                            item.pos(),
                            format!(
                                "{dropped} value(s) beyond the {} of field `{}` of `{}` \
                                 ignored",
                                field_len(f),
                                f.name,
                                ut.name
                            ),
                        ));
                    }
                    out.push(values);
                }
                // Fields left out at the end take fill values, as in the reference.
                let rest = fields.get(items.len()..).unwrap_or_default();
                out.extend(missing_fields(types, &ut.name, rest).map_err(|e| (*p, e.to_string()))?);
                Ok(Value::Compound(out))
            }
            (UserTypeKind::Compound { .. }, Item::Const(_, p)) => Err((
                *p,
                format!("a value of compound `{}` goes in braces", ut.name),
            )),
            (UserTypeKind::Vlen { .. }, Item::Const(_, p)) => Err((
                *p,
                format!(
                    "a value of vlen `{}` goes in braces, like {{1, 2}}",
                    ut.name
                ),
            )),
            (_, item) => Err((
                item.pos(),
                format!("this value does not fit type `{}`", ut.name),
            )),
        }
    }

    /// The values given for field `f` of the compound `compound`, before they are fitted
    /// to its size: an array field's values go in braces (a string may stand for a
    /// `char` array), a scalar field's do not.
    fn field_values(
        &mut self,
        compound: &str,
        f: &CompoundField,
        item: &Item,
    ) -> Result<Values, Failure> {
        let array = !f.dims.is_empty();
        match (f.type_ref, item) {
            (TypeRef::Atomic(AtomicType::Char), Item::Const(c @ Constant::Str(_), p)) => {
                let mut v = Values::empty(AtomicType::Char);
                push_constant(&mut v, c, AtomicType::Char).map_err(|m| (*p, m))?;
                Ok(v)
            }
            (TypeRef::Atomic(AtomicType::Char), Item::List(inner, _)) if array => {
                let mut v = Values::empty(AtomicType::Char);
                for item in inner {
                    match item {
                        Item::Const(c, p) if !is_char_constant(c) => self.dropped.push((
                            *p,
                            format!(
                                "{} in char field `{}` of `{compound}` is not a string or \
                                 character constant; ignored",
                                c.describe(),
                                f.name
                            ),
                        )),
                        item => push_flat(&mut v, std::slice::from_ref(item), AtomicType::Char)?,
                    }
                }
                Ok(v)
            }
            (TypeRef::Atomic(a), Item::List(inner, _)) if array => {
                let mut v = Values::empty(a);
                push_flat(&mut v, inner, a)?;
                Ok(v)
            }
            (_, Item::Const(_, p)) if array => Err((
                *p,
                format!(
                    "the {} values of array field `{}` of `{compound}` go in braces, like \
                     {{1, 2}}",
                    field_len(f),
                    f.name
                ),
            )),
            (TypeRef::Atomic(a), Item::List(_, p)) => Err((
                *p,
                format!(
                    "field `{}` of `{compound}` holds one `{}` value, not a list in braces",
                    f.name,
                    a.cdl_name()
                ),
            )),
            (TypeRef::Atomic(a), Item::Const(..)) => {
                let mut v = Values::empty(a);
                push_flat(&mut v, std::slice::from_ref(item), a)?;
                Ok(v)
            }
            (TypeRef::User(_), Item::List(inner, _)) if array => self.items(inner, f.type_ref),
            (TypeRef::User(_), _) => self.items(std::slice::from_ref(item), f.type_ref),
        }
    }
}

/// Appends constants (braces not allowed) converted to `a`.
fn push_flat(out: &mut Values, items: &[Item], a: AtomicType) -> Result<(), Failure> {
    for item in items {
        match item {
            Item::Const(c, p) => push_constant(out, c, a).map_err(|m| (*p, m))?,
            Item::List(_, p) => {
                return Err((
                    *p,
                    format!("expected a `{}` value, found `{{`", a.cdl_name()),
                ))
            }
        }
    }
    Ok(())
}
