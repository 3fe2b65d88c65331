use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

pub fn run(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = Parser::parse_sql(&GenericDialect {}, s);
    }
}
