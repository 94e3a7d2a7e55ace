//! The recursive-descent parser of a CDL file: groups, sections, dimensions,
//! variables; types and attributes are in sibling modules. Data lists are only scanned.

use std::io::BufRead;

use ncmodel::{AtomicType, TypeRef, Var};

use super::constant::Constant;
use super::error::{ErrorKind, ParseError, Position};
use super::input::Input;
use super::lexer::{atomic_type_named, Keyword, Lexer, Tok, Token};
use super::scope::{suggest, Scope};
use super::site::AttributeSite;
use super::DataEntry;

/// The most groups a CDL may nest (the netCDF-4 readers refuse more than 256 too).
const MAX_GROUP_DEPTH: usize = 256;

/// Which section of a group body a statement is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    /// Before any section keyword (attributes only).
    Start,
    /// `types:`.
    Types,
    /// `dimensions:`.
    Dimensions,
    /// `variables:`.
    Variables,
}

/// Parser state: the lexer, one token of lookahead, the dataset so far, data entries,
/// warnings, where the special attributes are.
pub(crate) struct Parser<R> {
    pub(crate) lex: Lexer<R>,
    peeked: Option<Token>,
    pub(crate) scope: Scope,
    pub(crate) data: Vec<DataEntry>,
    /// Warnings, in source order (`file:line:col: message`).
    pub(crate) warnings: Vec<String>,
    /// Where the attributes named `_...` are.
    pub(crate) sites: Vec<AttributeSite>,
    /// The bytes of every attribute's opaque and compound values built so far: one
    /// budget for the whole CDL, so that many small attributes of a huge type cannot each
    /// take the limit.
    pub(crate) user_bytes: u128,
}

impl<R: BufRead> Parser<R> {
    /// A parser of `reader`, named `source_name` in messages.
    pub(crate) fn new(reader: R, source_name: &str) -> Self {
        Self {
            lex: Lexer::new(Input::new(reader, source_name, Position::START)),
            peeked: None,
            scope: Scope::new(),
            data: Vec::new(),
            warnings: Vec::new(),
            sites: Vec::new(),
            user_bytes: 0,
        }
    }

    /// The next token, without consuming it.
    pub(crate) fn peek(&mut self) -> Result<&Token, ParseError> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lex.next_token()?);
        }
        match &self.peeked {
            Some(t) => Ok(t),
            None => unreachable_token(),
        }
    }

    /// Puts back the `;` a value list consumed, for the statement to consume.
    pub(crate) fn unread_semicolon(&mut self) {
        let pos = self.lex.input.position();
        self.peeked = Some(Token {
            kind: Tok::Punct(b';'),
            pos,
            len: 1,
        });
    }

    /// Whether the next token is the punctuation `c`.
    pub(crate) fn peek_is(&mut self, c: u8) -> Result<bool, ParseError> {
        Ok(self.peek()?.kind == Tok::Punct(c))
    }

    /// Consumes and returns the next token.
    pub(crate) fn next(&mut self) -> Result<Token, ParseError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex.next_token(),
        }
    }

    /// An error: `expected <expected>, found <tok>`.
    pub(crate) fn unexpected(&mut self, tok: &Token, expected: &str) -> ParseError {
        let mut e = ParseError::expected(tok.pos, tok.len as u32, expected, &tok.kind.describe());
        if tok.kind == Tok::Eof {
            e = e.with_hint("the file ends early: is a `}` or `;` missing?");
        }
        self.lex.input.decorate(&mut e, tok.pos);
        e
    }

    /// An error of `kind` about the token `tok`.
    pub(crate) fn error(
        &mut self,
        kind: ErrorKind,
        tok: &Token,
        msg: impl Into<String>,
    ) -> ParseError {
        self.lex.error_at(kind, tok.pos, tok.len, msg)
    }

    /// Consumes the punctuation `c` or fails saying `context`.
    pub(crate) fn expect(&mut self, c: u8, context: &str) -> Result<Token, ParseError> {
        let tok = self.next()?;
        if tok.kind == Tok::Punct(c) {
            return Ok(tok);
        }
        if c == b';' {
            if let Some(e) = self.lex.semicolon_missing_before(&tok) {
                return Err(e);
            }
        }
        Err(self.unexpected(&tok, &format!("`{}` {context}", char::from(c))))
    }

    /// Consumes a name (an identifier), failing with `what` as the expectation.
    pub(crate) fn name(&mut self, what: &str) -> Result<(String, Token), ParseError> {
        let tok = self.next()?;
        match &tok.kind {
            Tok::Ident(n) => Ok((n.clone(), tok)),
            Tok::Keyword(_) => {
                let e = self.unexpected(&tok, what);
                Err(e.with_hint(
                    "reserved words cannot be used as names; escape one with `\\` if you must",
                ))
            }
            _ => Err(self.unexpected(&tok, what)),
        }
    }

    /// The whole file: `netcdf NAME { body subgroups }`.
    pub(crate) fn file(&mut self) -> Result<String, ParseError> {
        self.lex.input.skip_byte_order_mark()?;
        let tok = self.next()?;
        if tok.kind != Tok::Keyword(Keyword::Netcdf) {
            let e = self.unexpected(&tok, "`netcdf`");
            return Err(e.with_hint("a CDL file starts with `netcdf NAME {`"));
        }
        let name = self.lex.dataset_name()?;
        self.expect(b'{', "after the dataset name")?;
        self.group_body()?;
        self.subgroups()?;
        self.expect(b'}', "to close the dataset")?;
        let tok = self.next()?;
        if tok.kind != Tok::Eof {
            return Err(self.unexpected(&tok, "end of file after the closing `}`"));
        }
        Ok(name)
    }

    /// Sections of a group in order: attributes, `types:`, `dimensions:`, `variables:`, `data:`.
    fn group_body(&mut self) -> Result<(), ParseError> {
        let mut section = Section::Start;
        loop {
            let tok = self.peek()?.clone();
            let next_section = match tok.kind {
                Tok::Keyword(Keyword::Types) => Section::Types,
                Tok::Keyword(Keyword::Dimensions) => Section::Dimensions,
                Tok::Keyword(Keyword::Variables) => Section::Variables,
                Tok::Keyword(Keyword::Data) => {
                    self.next()?;
                    return self.data_section();
                }
                Tok::Keyword(Keyword::Group) | Tok::Punct(b'}') | Tok::Eof => return Ok(()),
                _ => {
                    self.statement(section)?;
                    continue;
                }
            };
            if next_section as u8 <= section as u8 {
                let e = self.error(
                    ErrorKind::Syntax,
                    &tok,
                    format!(
                        "section `{}` is out of order",
                        tok.kind
                            .describe()
                            .replace("keyword ", "")
                            .trim_matches('`')
                    ),
                );
                return Err(e.with_hint(
                    "sections come in the order `types:`, `dimensions:`, `variables:`, `data:`, each at most once per group",
                ));
            }
            self.next()?;
            section = next_section;
        }
    }

    /// Child groups `group: NAME { ... }`, each followed by attributes of the parent (at
    /// most [`MAX_GROUP_DEPTH`] deep).
    fn subgroups(&mut self) -> Result<(), ParseError> {
        while self.peek()?.kind == Tok::Keyword(Keyword::Group) {
            self.next()?;
            let (name, tok) = self.name("a group name after `group:`")?;
            if self
                .scope
                .current_ref()
                .groups
                .iter()
                .any(|g| g.name == name)
            {
                return Err(self.error(
                    ErrorKind::Duplicate,
                    &tok,
                    format!("group `{name}` is defined twice in the same group"),
                ));
            }
            if self.scope.path().len() >= MAX_GROUP_DEPTH {
                // The groups nest as the parser recurses: 5,000 overflowed its stack
                // (red team s35 RB7); the netCDF-4 readers refuse more than 256 too.
                return Err(self.error(
                    ErrorKind::Syntax,
                    &tok,
                    format!("groups nested more than {MAX_GROUP_DEPTH} deep"),
                ));
            }
            self.expect(b'{', "after the group name")?;
            self.scope.open_group(name);
            self.group_body()?;
            self.subgroups()?;
            self.expect(b'}', "to close the group")?;
            self.scope.close_group();
            loop {
                let t = self.peek()?.kind.clone();
                if matches!(
                    t,
                    Tok::Keyword(Keyword::Group) | Tok::Punct(b'}') | Tok::Eof
                ) {
                    break;
                }
                self.statement(Section::Start)?;
            }
        }
        Ok(())
    }

    /// One statement (with its `;`) of a section.
    fn statement(&mut self, section: Section) -> Result<(), ParseError> {
        let tok = self.next()?;
        match tok.kind.clone() {
            Tok::Punct(b':') => self.attribute(None, None, &tok)?,
            Tok::Keyword(Keyword::Type(t)) => {
                return self.typed_statement(TypeRef::Atomic(t), &tok, section)
            }
            Tok::Keyword(Keyword::Compound) if section == Section::Types => {
                return self.compound_decl()
            }
            Tok::Keyword(Keyword::Opaque) if section == Section::Types => {
                return self.opaque_decl()
            }
            Tok::Ident(name) if section == Section::Dimensions && self.peek_is(b'=')? => {
                self.dimensions(name, tok)?;
            }
            Tok::Ident(name) if self.peek_is(b':')? => {
                self.next()?;
                if self.scope.current_ref().var(&name).is_some() {
                    self.attribute(Some(name), None, &tok)?;
                } else if let Some(t) = self.scope.find_type(&name).map(|t| t.id) {
                    self.attribute(None, Some(TypeRef::User(t)), &tok)?;
                } else {
                    return Err(self.unknown_variable(&name, &tok));
                }
            }
            Tok::Path(path) if self.peek_is(b':')? => {
                self.next()?;
                let Some(t) = self.scope.find_type_path(&path).map(|t| t.id) else {
                    return Err(self.error(
                        ErrorKind::UnknownType,
                        &tok,
                        format!("no type `/{}`", path.join("/")),
                    ));
                };
                self.attribute(None, Some(TypeRef::User(t)), &tok)?;
            }
            Tok::Ident(_) | Tok::Path(_) if section != Section::Dimensions => {
                let t = self.type_ref(&tok)?;
                return self.typed_statement(t, &tok, section);
            }
            _ => {
                let expected = match section {
                    Section::Start => {
                        "an attribute or a section (`types:`, `dimensions:`, `variables:`, `data:`)"
                    }
                    Section::Types => "a type definition or an attribute",
                    Section::Dimensions => {
                        "a dimension definition (`name = length`) or an attribute"
                    }
                    Section::Variables => "a variable definition or an attribute",
                };
                let e = self.unexpected(&tok, expected);
                return Err(if tok.kind == Tok::Punct(b';') {
                    e.with_hint("an extra `;`: remove it")
                } else {
                    e
                });
            }
        }
        self.expect(b';', "at the end of the statement")?;
        Ok(())
    }

    /// A statement starting with a type: typed attribute, type or variable definition.
    fn typed_statement(
        &mut self,
        t: TypeRef,
        first: &Token,
        section: Section,
    ) -> Result<(), ParseError> {
        let tok = self.next()?;
        match tok.kind.clone() {
            Tok::Punct(b':') => self.attribute(None, Some(t), &tok)?,
            Tok::Keyword(Keyword::Enum) if section == Section::Types => {
                return self.enum_decl(t, first)
            }
            Tok::Punct(b'(') if section == Section::Types => return self.vlen_decl(t),
            Tok::Ident(name) if self.peek_is(b':')? => {
                self.next()?;
                if self.scope.current_ref().var(&name).is_none() {
                    return Err(self.unknown_variable(&name, &tok));
                }
                self.attribute(Some(name), Some(t), &tok)?;
            }
            Tok::Ident(name) if section == Section::Variables => self.variables(t, name, tok)?,
            _ => {
                let expected = if section == Section::Variables {
                    "a variable name"
                } else if section == Section::Types {
                    "`enum`, `(*)` or an attribute"
                } else {
                    "`:` and an attribute name"
                };
                let e = self.unexpected(&tok, expected);
                if let (Tok::Keyword(_), Tok::Punct(b'=' | b'(' | b',' | b';')) =
                    (&first.kind, &tok.kind)
                {
                    let word = first.kind.describe().replace("keyword ", "");
                    return Err(e.with_hint(format!(
                        "{word} is a reserved word and cannot be a name; escape it (`\\{}`) if you must",
                        word.trim_matches('`')
                    )));
                }
                return Err(
                    if section == Section::Start || section == Section::Dimensions {
                        e.with_hint("variables are defined in the `variables:` section")
                    } else {
                        e
                    },
                );
            }
        }
        self.expect(b';', "at the end of the statement")?;
        Ok(())
    }

    /// An error for an undefined variable `name`.
    pub(crate) fn unknown_variable(&mut self, name: &str, tok: &Token) -> ParseError {
        let names: Vec<String> = self
            .scope
            .current_ref()
            .vars
            .iter()
            .map(|v| v.name.clone())
            .collect();
        let hint =
            suggest(name, names.iter().map(String::as_str)).map(|s| format!("did you mean `{s}`?"));
        let e = self.error(
            ErrorKind::UnknownVariable,
            tok,
            format!("no variable `{name}` in this group (variables must be defined before use)"),
        );
        match hint {
            Some(h) => e.with_hint(h),
            None => e,
        }
    }

    /// A type named by `tok` (a name or a path), or an error suggesting a close match.
    pub(crate) fn type_ref(&mut self, tok: &Token) -> Result<TypeRef, ParseError> {
        let found = match &tok.kind {
            Tok::Keyword(Keyword::Type(t)) => return Ok(TypeRef::Atomic(*t)),
            Tok::Ident(n) => self.scope.find_type(n).map(|t| t.id),
            Tok::Path(p) => self.scope.find_type_path(p).map(|t| t.id),
            _ => return Err(self.unexpected(tok, "a type name")),
        };
        if let Some(id) = found {
            return Ok(TypeRef::User(id));
        }
        // A type name that the dialect leaves unreserved is still a type where a type is
        // expected (`string v:att = ...` with a classic -k), as in the reference.
        if let Some(t) = match &tok.kind {
            Tok::Ident(n) => atomic_type_named(n),
            _ => None,
        } {
            return Ok(TypeRef::Atomic(t));
        }
        let shown = match &tok.kind {
            Tok::Path(p) => format!("/{}", p.join("/")),
            Tok::Ident(n) => n.clone(),
            _ => String::new(),
        };
        let names = self.scope.visible_type_names();
        let hint = suggest(&shown, names.iter().map(String::as_str))
            .map(|s| format!("did you mean `{s}`?"));
        let e = self.error(
            ErrorKind::UnknownType,
            tok,
            format!("unknown type `{shown}`"),
        );
        Err(match hint {
            Some(h) => e.with_hint(h),
            None => e.with_hint("types must be defined in a `types:` section before use"),
        })
    }

    /// `name = length | UNLIMITED` (after the first name), more after commas.
    fn dimensions(&mut self, mut name: String, mut tok: Token) -> Result<(), ParseError> {
        loop {
            if self.scope.current_ref().dims.iter().any(|d| d.name == name) {
                return Err(self.error(
                    ErrorKind::Duplicate,
                    &tok,
                    format!("dimension `{name}` is defined twice in the same group"),
                ));
            }
            self.expect(b'=', "after the dimension name")?;
            let len_tok = self.next()?;
            match &len_tok.kind {
                Tok::Keyword(Keyword::Unlimited) => self.scope.add_dim(name, 0, true),
                Tok::Const(Constant::Int {
                    value,
                    ty: AtomicType::Int | AtomicType::UInt | AtomicType::Int64 | AtomicType::UInt64,
                }) => {
                    let Ok(len) = usize::try_from(*value) else {
                        let e = self.error(
                            ErrorKind::BadDimension,
                            &len_tok,
                            "a dimension length cannot be negative",
                        );
                        return Err(e);
                    };
                    self.scope.add_dim(name, len, false);
                }
                _ => {
                    let e =
                        self.unexpected(&len_tok, "a dimension length (an integer) or `UNLIMITED`");
                    return Err(e);
                }
            }
            if !self.peek_is(b',')? {
                return Ok(());
            }
            self.next()?;
            let (n, t) = self.name("a dimension name after `,`")?;
            name = n;
            tok = t;
        }
    }

    /// Variables of type `t`: `name(dims), name2, ...` (the first name is read).
    fn variables(
        &mut self,
        t: TypeRef,
        mut name: String,
        mut tok: Token,
    ) -> Result<(), ParseError> {
        loop {
            if self.scope.current_ref().var(&name).is_some() {
                return Err(self.error(
                    ErrorKind::Duplicate,
                    &tok,
                    format!("variable `{name}` is defined twice in the same group"),
                ));
            }
            let mut dim_ids = Vec::new();
            if self.peek_is(b'(')? {
                self.next()?;
                loop {
                    let d = self.next()?;
                    dim_ids.push(self.dim_ref(&d)?);
                    let sep = self.next()?;
                    match sep.kind {
                        Tok::Punct(b',') => {}
                        Tok::Punct(b')') => break,
                        _ => return Err(self.unexpected(&sep, "`,` or `)` in the dimension list")),
                    }
                }
            }
            self.scope.add_var(Var {
                id: 0,
                name,
                type_ref: t,
                dim_ids,
                atts: Vec::new(),
                storage: None,
            });
            let sep = self.peek()?.clone();
            match sep.kind {
                Tok::Punct(b',') => {
                    self.next()?;
                    let (n, t2) = self.name("a variable name after `,`")?;
                    name = n;
                    tok = t2;
                }
                Tok::Punct(b';') => return Ok(()),
                _ => {
                    self.next()?;
                    if let Some(e) = self.lex.semicolon_missing_before(&sep) {
                        return Err(e);
                    }
                    let e = self.unexpected(&sep, "`(`, `,` or `;` after the variable name");
                    return Err(e);
                }
            }
        }
    }

    /// The id of the dimension named by `tok`.
    fn dim_ref(&mut self, tok: &Token) -> Result<i32, ParseError> {
        let (found, shown) = match &tok.kind {
            Tok::Ident(n) => (self.scope.find_dim(n).map(|d| d.id), n.clone()),
            Tok::Path(p) => (
                self.scope.find_dim_path(p).map(|d| d.id),
                format!("/{}", p.join("/")),
            ),
            Tok::Keyword(Keyword::Unlimited) => {
                let e = self.error(
                    ErrorKind::BadDimension,
                    tok,
                    "`UNLIMITED` is not a dimension name",
                );
                return Err(e.with_hint(
                    "define an unlimited dimension (`time = UNLIMITED ;`) and use its name",
                ));
            }
            _ => return Err(self.unexpected(tok, "a dimension name")),
        };
        if let Some(id) = found {
            return Ok(id);
        }
        let names = self.scope.visible_dim_names();
        let hint = suggest(&shown, names.iter().map(String::as_str)).map_or_else(
            || "dimensions must be defined in a `dimensions:` section before use".to_string(),
            |s| format!("did you mean `{s}`?"),
        );
        let e = self.error(
            ErrorKind::UnknownDimension,
            tok,
            format!("unknown dimension `{shown}`"),
        );
        Err(e.with_hint(hint))
    }

    /// The `data:` section: entries `name = values ;`, values only scanned.
    fn data_section(&mut self) -> Result<(), ParseError> {
        loop {
            let tok = self.peek()?.clone();
            let (path, shown) = match &tok.kind {
                Tok::Ident(n) => (vec![n.clone()], n.clone()),
                Tok::Path(p) => (p.clone(), format!("/{}", p.join("/"))),
                Tok::Keyword(Keyword::Group) | Tok::Punct(b'}') | Tok::Eof => return Ok(()),
                _ => {
                    self.next()?;
                    return Err(self.unexpected(&tok, "a variable name in the data section"));
                }
            };
            self.next()?;
            // A `/` alone is a path without a name.
            let Some((var_name, groups)) = path.split_last() else {
                return Err(self.unknown_variable(&shown, &tok));
            };
            let group_path = if groups.is_empty() && matches!(tok.kind, Tok::Ident(_)) {
                self.scope.path()
            } else {
                groups.to_vec()
            };
            let var_name = var_name.clone();
            let exists = self
                .scope
                .group_at(&group_path)
                .is_some_and(|g| g.var(&var_name).is_some());
            if !exists {
                return Err(self.unknown_variable(&shown, &tok));
            }
            let eq = self.expect(b'=', "after the variable name in the data section")?;
            self.data.push(DataEntry {
                group_path,
                var_name,
                offset: eq.pos.offset + 1,
                line: eq.pos.line,
                col: eq.pos.col + 1,
            });
            // The values are read and checked by the data pass (DataReader).
            self.lex.input.skip_data_list()?;
        }
    }
}

/// Never reached: `peek` always fills the lookahead first.
fn unreachable_token() -> Result<&'static Token, ParseError> {
    Err(ParseError::new(
        ErrorKind::Syntax,
        Position::START,
        "internal error: no token",
    ))
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_header, ErrorKind};

    /// A `/` alone where a data entry's variable goes is an unknown variable; it used to
    /// panic (a path without a name). Found by the fuzz target cdl_parse.
    #[test]
    fn a_slash_alone_in_the_data_section_is_an_unknown_variable() {
        let cdl = "netcdf t {\nvariables:\n int v ;\ndata:\n / = 1 ;\n}\n";
        match parse_header(cdl.as_bytes(), "t.cdl") {
            Err(e) => assert_eq!((e.kind, e.line, e.col), (ErrorKind::UnknownVariable, 5, 2)),
            Ok(h) => panic!("{h:?}"),
        }
    }
}
