package txlog.testing

import org.scalactic.source.Position
import org.scalatest.funsuite.AnyFunSuite

/** A suite whose heaviest tests (whole statement sequences run through delta-spark and txlog) take
  * turns in `make test`: each test declared with [[inTurn]] runs one day in [[turns]], which tests
  * rotating with the day's number as [[Breadth.share]]'s items do, so consecutive days' runs run
  * each of them; the others are reported as ignored, by name. `-Dtxlog.breadth=full` (`make
  * test-breadth`, part of `make test-matrix`) runs every one. Tests declared with `test` run every
  * time: each suite keeps at least one of its surface's checks among them.
  */
trait InTurn extends AnyFunSuite {

  /** How many days a turn takes: 2 runs half of the suite's tests in turn each day. */
  protected def turns: Int

  private var declared = 0

  /** A test that runs in today's turn (else ignored), as `test` declares it.
    *
    * {{{
    * inTurn("MERGE by deletion vectors: delta-spark's rows and counts") { ... }
    * }}}
    */
  protected def inTurn(name: String)(body: => Any)(implicit pos: Position): Unit = {
    val index = declared
    declared += 1
    if (Breadth.today(index, turns, suiteName)) test(name)(body) else ignore(name)(body)
  }
}
