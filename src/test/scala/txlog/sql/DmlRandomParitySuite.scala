package txlog.sql

import scala.util.Random

import txlog.oracle.Recording
import txlog.scan.Rows

/** Seeded random sequences of `DELETE`, `UPDATE` and `MERGE` (every kind of clause, conditions on
  * partition, data and nested columns, nested fields set, rows moved between partitions, MERGE
  * sources that are queries of the table itself) applied by delta-spark and by txlog to two copies
  * of one table, with deletion vectors and without (copy-on-write), and with the change data feed
  * on: after every statement the same rows (read by txlog and by delta-spark at txlog's path, and
  * by delta-rs at the suite's end), a commit on both sides or on neither, the same operation and
  * the same row counts in its metrics; with the feed on, the same `table_changes` of the commit
  * (read by delta-spark from both tables and by txlog from its own), and, row tracking on with it,
  * every row keeps its id and the same rows move to the commit's version on both sides; and with
  * column mapping by name (the files' columns named by the physical names). One difference is
  * accepted: delta-spark's copy-on-write MERGE commits when target rows match the ON condition but
  * no clause changes them (their files rewritten with the same rows, every count 0), where txlog
  * commits nothing. The statements are in the test's failure message, with the seed:
  * `TXLOG_ORACLE_SEED=<seed>` runs the same sequence again. `make test` runs some table kinds a
  * day; `make test-breadth` all, with longer sequences.
  */
class DmlRandomParitySuite extends SqlParity with txlog.testing.InTurn {
  // make test runs one table kind a day (each about 35 s), a new sequence every day
  override protected def turns = 4

  override protected def database: String = "sqlrandom"

  private val full = txlog.testing.Breadth.full
  private val statements = if (full) 24 else 8

  /** The row counts each operation's metrics give, under delta-spark's names. */
  private val counts = Map(
    "DELETE" -> Seq("numDeletedRows"),
    "UPDATE" -> Seq("numUpdatedRows"),
    "MERGE" -> Seq("numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsDeleted")
  )

  /** One statement's text, drawn from `r` (`{t}` the table). */
  private final class Draw(r: Random) {
    private var nextId = 100L
    private val parts = Seq("a", "b", "c")
    private def pick[A](xs: Seq[A]): A = xs(r.nextInt(xs.size))

    /** A condition on the target's columns (`q` their qualifier in a MERGE). */
    def condition(q: String = ""): String = {
      def one = r.nextInt(7) match {
        case 0 => s"${q}id % ${2 + r.nextInt(3)} = ${r.nextInt(2)}"
        case 1 => s"${q}part = '${pick(parts)}'"
        case 2 => s"${q}part IN ('${pick(parts)}', '${pick(parts)}')"
        case 3 => s"${q}v = '${pick(Seq("x", "y", "z", "u"))}'"
        case 4 => s"${q}v LIKE '${pick(Seq("u", "x", "m"))}%'"
        case 5 => s"${q}n.a ${pick(Seq("=", ">"))} ${r.nextInt(4)}"
        case _ => s"${q}id > ${r.nextInt(12)}"
      }
      r.nextInt(3) match {
        case 0 => s"$one AND $one"
        case 1 => s"($one OR $one)"
        case _ => one
      }
    }

    def delete: String = s"DELETE FROM {t} WHERE ${condition()}"

    def update: String = {
      val set = Seq(
        Some(s"v = ${pick(Seq("'u'", "concat(v, 'u')", "upper(v)"))}"),
        if (r.nextInt(3) == 0) Some(s"part = '${pick(parts)}'") else None,
        // nested fields, one or both
        if (r.nextInt(3) == 0) Some(pick(Seq("n.a = n.a + 1", "n.b = v"))) else None
      ).flatten
      s"UPDATE {t} SET ${set.mkString(", ")} WHERE ${condition()}"
    }

    /** A MERGE from a source of distinct ids, some in the table and some new; or, one in four, from
      * a query of the table itself (every row of the source matched).
      */
    def merge(ids: Seq[Long]): String = {
      val old = r.shuffle(ids).take(1 + r.nextInt(4))
      val fresh = Seq.fill(r.nextInt(3) + (if (old.isEmpty) 1 else 0)) { nextId += 1; nextId }
      val rows = (old ++ fresh).map(id => s"(${id}L, '${pick(Seq("d", "m", "mm"))}')")
      val source =
        if (r.nextInt(4) == 0) s"(SELECT id, concat(v, 'q') AS v FROM {t} WHERE ${condition()})"
        else s"(SELECT * FROM VALUES ${rows.mkString(", ")} AS s(id, v))"
      val clauses = Seq(
        if (r.nextBoolean()) Some("WHEN MATCHED AND s.v = 'd' THEN DELETE") else None,
        if (r.nextInt(4) > 0) {
          // nested fields are set by UPDATE only: delta-spark's MERGE refuses a nested key here
          // (DELTA_MERGE_UNEXPECTED_ASSIGNMENT_KEY)
          val set = pick(Seq("v = s.v", "v = concat(t.v, s.v)", "v = concat(t.n.b, s.v)"))
          Some(s"WHEN MATCHED THEN UPDATE SET $set")
        } else None,
        if (r.nextBoolean()) {
          Some(
            "WHEN NOT MATCHED THEN INSERT (id, part, v, n) " +
              s"VALUES (s.id, '${pick(parts)}', s.v, named_struct('a', 9, 'b', s.v))"
          )
        } else None,
        if (r.nextInt(3) == 0) {
          val action = pick(Seq("DELETE", "UPDATE SET v = 'nms'"))
          Some(s"WHEN NOT MATCHED BY SOURCE AND ${condition("t.")} THEN $action")
        } else None
      ).flatten
      // a MERGE that only inserts is an append on txlog's side (a WRITE commit, docs/sql.md)
      val all =
        if (clauses.exists(!_.startsWith("WHEN NOT MATCHED THEN"))) clauses
        else "WHEN MATCHED THEN DELETE" +: clauses
      s"MERGE INTO {t} t USING $source s ON t.id = s.id ${all.mkString(" ")}"
    }
  }

  /** The change data of version `v` of the table at `path`, read by delta-spark, as sorted text. */
  private def feed(path: String, v: Long): Seq[String] = Rows.sorted(
    spark.sql(
      s"SELECT id, part, v, n, _change_type FROM table_changes_by_path('$path', $v, $v)"
    )
  )

  private def sequence(
      name: String,
      dvs: Boolean,
      cdf: Boolean = false,
      mapping: Boolean = false
  ): Unit = {
    val seed = Recording.seed + (if (mapping) 4 else if (cdf) 3 else if (dvs) 1 else 2)
    // row tracking with the feed
    val tracked = cdf
    val r = new Random(seed)
    val draw = new Draw(r)
    val p = pair(name)
    p.both(
      "CREATE TABLE {t} (id BIGINT, part STRING, v STRING, n STRUCT<a: INT, b: STRING>) " +
        "USING {p} PARTITIONED BY (part) LOCATION '{loc}' " +
        s"TBLPROPERTIES ('delta.enableDeletionVectors' = '$dvs'" +
        (if (cdf) ", 'delta.enableChangeDataFeed' = 'true'" else "") +
        (if (mapping) ", 'delta.columnMapping.mode' = 'name'" else "") +
        (if (tracked) ", 'delta.enableRowTracking' = 'true')" else ")")
    )
    for (k <- 0 until 3) {
      val rows = (1 to 4).map { i =>
        val id = k * 4 + i
        val v = Seq("x", "y", "z")(id % 3)
        val part = Seq("a", "b", "c")((id + k) % 3)
        s"($id, '$part', '$v', named_struct('a', ${id % 4}, 'b', '$v'))"
      }
      p.both(s"INSERT INTO {t} VALUES ${rows.mkString(", ")}")
    }
    val done = Vector.newBuilder[String]
    for (_ <- 0 until statements) {
      val ids = spark.table(p.deltaTable).select("id").collect().map(_.getLong(0)).toSeq.sorted
      val sql = r.nextInt(3) match {
        case 0 => draw.delete
        case 1 => draw.update
        case _ => draw.merge(ids)
      }
      done += sql
      val context = s"seed $seed, statements:\n${done.result().mkString("\n")}"
      val before = (versionOf(p.deltaTable), versionOf(p.txlogTable))
      val idsBefore = if (tracked) Some((rowIds(p.deltaTable), rowIds(p.txlogTable))) else None
      p.both(sql)
      withClue(context) {
        p.sameRows()
        val (d, t) = (versionOf(p.deltaTable), versionOf(p.txlogTable))
        val op = latest(p.deltaTable).getAs[String]("operation")
        val keys = counts.getOrElse(op, Nil)
        if (t != before._2) {
          assert(d != before._1, "txlog committed where delta-spark did not")
          assert(latest(p.txlogTable).getAs[String]("operation") == op)
          assert(metricsOf(p.txlogTable, keys) == metricsOf(p.deltaTable, keys))
          if (cdf) {
            val expected = feed(p.deltaPath, d)
            assert(feed(p.txlogPath, t) == expected, "delta-spark's table_changes of txlog's")
            val ours = txlog.DeltaLog.forTable(spark, p.txlogPath).changes(t, t)
            assert(Rows.sorted(ours.select("id", "part", "v", "n", "_change_type")) == expected)
          }
          idsBefore.foreach { case (theirs, ours) =>
            // updated rows keep their ids, as delta-spark's, and move to the commit's version
            val changed = rowIdsKept(ours, rowIds(p.txlogTable), t)
            assert(changed == rowIdsKept(theirs, rowIds(p.deltaTable), d))
          }
        } else if (d != before._1) {
          // delta-spark's copy-on-write MERGE commits when target rows match the ON condition
          // but no clause changes them (their files rewritten, the same rows); txlog does not
          assert(op == "MERGE" && metricsOf(p.deltaTable, keys).values.forall(_ == "0"))
        }
      }
    }
  }

  inTurn("random DELETE / UPDATE / MERGE by deletion vectors: delta-spark's rows and counts") {
    sequence("dvs", dvs = true)
  }

  inTurn("random DELETE / UPDATE / MERGE copy-on-write: delta-spark's rows and counts") {
    sequence("cow", dvs = false)
  }

  inTurn("random DELETE / UPDATE / MERGE, change data feed on: delta-spark's table_changes") {
    // with row tracking: deletion vectors on odd seeds, copy-on-write on even ones
    sequence("cdf", dvs = Recording.seed % 2 == 1, cdf = true)
  }

  inTurn("random DELETE / UPDATE / MERGE, column mapping by name: delta-spark's rows and counts") {
    // deletion vectors on even seeds, copy-on-write on odd ones
    sequence("mapped", dvs = Recording.seed % 2 == 0, mapping = true)
  }

  deltaRsReadsEveryTable()
}
