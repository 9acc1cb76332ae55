package txlog.sql

import org.scalatest.funsuite.AnyFunSuite

/** What txlog's statement recognizer makes of SQL text (no Spark): its statements with their parts
  * as written, and None for text in any other form, which goes to the delegate parser.
  */
class SqlStatementsSuite extends AnyFunSuite with txlog.testing.Claimed {
  import SqlStatement._

  private def parse(sql: String) = SqlStatements.parse(sql)

  // delta-spark keeps the condition's tokens joined by one space: CHECK (length(part) = 1) is
  // stored as 'length ( part ) = 1' (SqlAlterParitySuite reads it back from delta-spark's table)
  test("ADD CONSTRAINT: the name as written (unquoted), the condition's tokens spaced") {
    assert(
      parse("ALTER TABLE db.t ADD CONSTRAINT Positive CHECK (id>=0 AND (v IS NULL OR v<>3))") ==
        Some(AddConstraint("db.t", "Positive", "id >= 0 AND ( v IS NULL OR v <> 3 )"))
    )
    assert(
      parse("alter table txlog.`/data/t` add constraint `odd ``name``` check ( length(p) = 1 );") ==
        Some(AddConstraint("txlog.`/data/t`", "odd `name`", "length ( p ) = 1"))
    )
    assert(
      parse("ALTER TABLE t ADD CONSTRAINT c CHECK (s = 'a  b' AND n < 10L AND `x y` <=> -1.5e3)") ==
        Some(AddConstraint("t", "c", "s = 'a  b' AND n < 10L AND `x y` <=> - 1.5e3"))
    )
  }

  test("DROP CONSTRAINT [IF EXISTS]") {
    assert(parse("ALTER TABLE t DROP CONSTRAINT c") == Some(DropConstraint("t", "c", false)))
    assert(
      parse("ALTER TABLE a.b DROP CONSTRAINT IF EXISTS `c d`") ==
        Some(DropConstraint("a.b", "c d", true))
    )
  }

  test("other forms are left to the delegate parser") {
    Seq(
      "ALTER TABLE t ADD CONSTRAINT c CHECK id > 0", // no parentheses
      "ALTER TABLE t ADD CONSTRAINT c CHECK ()", // no condition
      "ALTER TABLE t ADD CONSTRAINT c PRIMARY KEY (id)",
      "ALTER TABLE t ADD CONSTRAINT CHECK (id > 0)", // no name
      "ALTER TABLE t DROP CONSTRAINT c CASCADE",
      "ALTER TABLE t DROP CONSTRAINT",
      "ALTER TABLE t ADD COLUMNS (c INT)",
      "ALTER TABLE t SET TBLPROPERTIES ('k' = 'v')"
    ).foreach(sql => assert(parse(sql).isEmpty, sql))
  }
}
