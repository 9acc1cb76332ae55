package txlog.util

import org.scalatest.funsuite.AnyFunSuite

/** [[Lru]]: the bound, which entry goes first (the least recently used, reads counting as use), and
  * that a value is computed only when it is not held.
  */
class LruSuite extends AnyFunSuite with txlog.testing.Claimed {

  test("holds at most max entries and drops the least recently used one") {
    val lru = new Lru[String, Integer](2)
    lru.put("a", 1)
    lru.put("b", 2)
    assert(lru.get("a").contains(1)) // a is now more recent than b
    lru.put("c", 3)
    assert(lru.size === 2)
    assert(lru.get("b").isEmpty)
    assert(lru.get("a").contains(1) && lru.get("c").contains(3))
    lru.remove("a")
    assert(lru.get("a").isEmpty && lru.size === 1)
  }

  test("getOrElseUpdate computes a value only when the key is not held") {
    val lru = new Lru[String, Integer](4)
    var made = 0
    def make(v: Int): Integer = { made += 1; v }
    assert(lru.getOrElseUpdate("k", make(7)) === 7)
    assert(lru.getOrElseUpdate("k", make(8)) === 7)
    assert(made === 1)
  }

  test("a bound below one is refused") {
    intercept[IllegalArgumentException](new Lru[String, Integer](0))
  }
}
