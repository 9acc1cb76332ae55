package txlog.testing

/** How much of each breadth run a test JVM makes: the suites that repeat one check over every
  * fixture or every variant of a table (checkpoint round trips, validation, replay by tasks,
  * compaction, interop) take a share of their items in `make test`, the share rotating with the
  * day's number ([[txlog.oracle.Recording.seed]], `TXLOG_ORACLE_SEED`) so that consecutive days'
  * runs cover every item; `-Dtxlog.breadth=full` (`make test-breadth`, part of `make test-matrix`)
  * runs every item. Each suite keeps, beside its share, the items it names as always checked.
  *
  * The items checked are the suite's tests' names, so a report says which ones ran.
  */
object Breadth {

  /** Every item (`-Dtxlog.breadth=full`) or each suite's share (no property). */
  val full: Boolean = sys.props.get("txlog.breadth") match {
    case Some("full") => true
    case None         => false
    case Some(other)  => sys.error(s"-Dtxlog.breadth=$other: use full (or leave it out)")
  }

  /** The share of the fixtures the fixture-agreement suites (snapshots, time travel, rows) check:
    * `-Dtxlog.fixtureShare=N` checks today's `1/N` of them, rotating as [[share]] does; every
    * fixture without the property. `make test` passes 2 to its Spark 3.5 run, whose delta-spark
    * answers are recorded as the default line's are, so two days' runs check every fixture there.
    */
  val fixtureShare: Int = sys.props.get("txlog.fixtureShare") match {
    case None                                => 1
    case Some(n) if n.matches("[1-9][0-9]*") => n.toInt
    case Some(other) => sys.error(s"-Dtxlog.fixtureShare=$other: use a whole number from 1")
  }

  /** Today's [[fixtureShare]] of `tables` for the suite `salt` (every table when [[full]]).
    *
    * {{{
    * Breadth.fixtures(Fixtures.tables, "RowAgreementSuite").foreach { name => ... }
    * }}}
    */
  def fixtures(tables: Seq[String], salt: String): Seq[String] =
    share(tables, fixtureShare, salt)(_ => false)

  /** The items whose position is in today's `1/every` of `items` (every item when [[full]]), and
    * every item `always` holds, in their order. The share is drawn per `salt` (a suite's name), so
    * suites sharing the fixture list check different fixtures on the same day.
    *
    * {{{
    * val tables = Breadth.share(Fixtures.tables, 4, "CheckpointRoundTrips")(_.contains("dv"))
    * }}}
    */
  def share[A](items: Seq[A], every: Int, salt: String)(always: A => Boolean): Seq[A] =
    items.zipWithIndex.collect { case (item, i) if today(i, every, salt) || always(item) => item }

  /** Whether the item at `index` of a list shared by `salt` is in today's `1/every` of it (always
    * when [[full]]).
    *
    * {{{
    * if (Breadth.today(2, 3, "RepairSuite")) test(name)(body) else ignore(name)(body)
    * }}}
    */
  def today(index: Int, every: Int, salt: String): Boolean = {
    require(every >= 1, s"every must be at least 1: $every")
    full || every == 1 || {
      val offset = Math.floorMod(txlog.oracle.Recording.seed + salt.hashCode.toLong, every.toLong)
      Math.floorMod(index - offset, every.toLong) == 0
    }
  }
}
