package txlog.txn

import com.fasterxml.jackson.databind.ObjectMapper
import org.scalatest.funsuite.AnyFunSuite

/** [[DvUpdates.wideBounds]] against the spec's "Per-file Statistics": once a file's deleted rows
  * change its bounds are wide (`tightBounds` false), and a column null in every live row must say
  * so the wide way, its `nullCount` equal to `numRecords` (the physical rows); other counts and
  * values stay. Stats already wide stay as they are.
  */
class DvUpdatesSuite extends AnyFunSuite with txlog.testing.Claimed {
  private val mapper = new ObjectMapper()
  private def json(s: String) = mapper.readTree(s)

  test("tight bounds become wide; a column null in every live row counts the physical rows") {
    // 10 rows, 2 deleted by the current DV: 8 live, all null in `a`, one null in `b`
    val stats = """{"numRecords":10,"minValues":{"b":1.50,"s":{"c":"x"}},""" +
      """"maxValues":{"b":9},"nullCount":{"a":8,"b":1,"s":{"c":8}},"tightBounds":true}"""
    val wide = DvUpdates.wideBounds(stats, 2L)
    assert(
      json(wide) === json(
        """{"numRecords":10,"minValues":{"b":1.50,"s":{"c":"x"}},"maxValues":{"b":9},""" +
          """"nullCount":{"a":10,"b":1,"s":{"c":10}},"tightBounds":false}"""
      )
    )
    assert(wide.contains("1.50"), wide) // numbers kept as written
  }

  test("absent tightBounds is tight (the spec); no DV yet: every live row is a physical one") {
    val wide = DvUpdates.wideBounds("""{"numRecords":4,"nullCount":{"a":4,"b":0}}""", null)
    assert(
      json(wide) === json("""{"numRecords":4,"nullCount":{"a":4,"b":0},"tightBounds":false}""")
    )
  }

  test("wide stats, no stats and stats that are no JSON object stay as they are") {
    val wide = """{"numRecords":10,"nullCount":{"a":8},"tightBounds":false}"""
    assert(DvUpdates.wideBounds(wide, 2L) === wide)
    assert(DvUpdates.wideBounds(null, 2L) === null)
    assert(DvUpdates.wideBounds("", 2L) === "")
    assert(DvUpdates.wideBounds("[1]", 2L) === "[1]")
  }
}
