//! Parses a stylesheet the way a font loader does: every rule is walked, and the
//! `unicode-range` descriptor of `@font-face` is parsed with `UnicodeRange::parse`.
use cssparser::*;

struct Sheet;

fn skip<'i>(input: &mut Parser<'i, '_>) -> Result<(), ParseError<'i, ()>> {
    while input.next_including_whitespace_and_comments().is_ok() {}
    Ok(())
}

impl<'i> QualifiedRuleParser<'i> for Sheet {
    type Prelude = ();
    type QualifiedRule = ();
    type Error = ();
    fn parse_prelude<'t>(&mut self, input: &mut Parser<'i, 't>) -> Result<(), ParseError<'i, ()>> {
        skip(input)
    }
    fn parse_block<'t>(&mut self, _: (), _: &ParserState, input: &mut Parser<'i, 't>) -> Result<(), ParseError<'i, ()>> {
        for _ in RuleBodyParser::new(input, &mut Body { font_face: false }) {}
        Ok(())
    }
}

impl<'i> AtRuleParser<'i> for Sheet {
    type Prelude = bool;
    type AtRule = ();
    type Error = ();
    fn parse_prelude<'t>(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i, 't>) -> Result<bool, ParseError<'i, ()>> {
        skip(input)?;
        Ok(name.eq_ignore_ascii_case("font-face"))
    }
    fn rule_without_block(&mut self, _: bool, _: &ParserState) -> Result<(), ()> {
        Ok(())
    }
    fn parse_block<'t>(&mut self, font_face: bool, _: &ParserState, input: &mut Parser<'i, 't>) -> Result<(), ParseError<'i, ()>> {
        if font_face {
            for _ in RuleBodyParser::new(input, &mut Body { font_face }) {}
        } else {
            for _ in StyleSheetParser::new(input, &mut Sheet) {}
        }
        Ok(())
    }
}

struct Body {
    font_face: bool,
}

impl<'i> DeclarationParser<'i> for Body {
    type Declaration = ();
    type Error = ();
    fn parse_value<'t>(&mut self, name: CowRcStr<'i>, input: &mut Parser<'i, 't>) -> Result<(), ParseError<'i, ()>> {
        if self.font_face && name.eq_ignore_ascii_case("unicode-range") {
            input.parse_comma_separated(|i| UnicodeRange::parse(i).map_err(Into::into))?;
            Ok(())
        } else {
            skip(input)
        }
    }
}

impl<'i> AtRuleParser<'i> for Body {
    type Prelude = ();
    type AtRule = ();
    type Error = ();
}

impl<'i> QualifiedRuleParser<'i> for Body {
    type Prelude = ();
    type QualifiedRule = ();
    type Error = ();
}

impl<'i> RuleBodyItemParser<'i, (), ()> for Body {
    fn parse_declarations(&self) -> bool {
        true
    }
    fn parse_qualified(&self) -> bool {
        false
    }
}

pub fn run(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        let mut input = ParserInput::new(s);
        let mut parser = Parser::new(&mut input);
        for _ in StyleSheetParser::new(&mut parser, &mut Sheet) {}
    }
}
