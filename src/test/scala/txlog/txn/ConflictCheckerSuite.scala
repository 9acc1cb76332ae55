package txlog.txn

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{GreaterThan, Literal}
import org.apache.spark.sql.functions.col

/** Each scenario is raced with delta-spark's own transactions on a table: the winner commits, then
  * the loser's commit meets it. The exception delta-spark raises (or none) is the expected outcome;
  * txlog's checker, given the same read set, staged actions and the winner's commit file (written
  * by delta-spark), must raise the corresponding error class.
  */
class ConflictCheckerSuite extends ConflictRaces {
  for (
    (level, name) <- Seq(
      IsolationLevel.WriteSerializable -> "WriteSerializable",
      IsolationLevel.Serializable -> "Serializable"
    )
  ) {
    test(s"disjoint partitions do not conflict ($name)") {
      val dir = newTable(name)
      val (v, delta) = race(dir, name) { t =>
        t.filterFiles(Seq(partIs("a")))
        Seq(add("part=a/c1.parquet", "a"), add("part=a/a0.parquet", "a").remove)
      } { w =>
        w.filterFiles(Seq(partIs("b")))
        Seq(add("part=b/w1.parquet", "b"), add("part=b/b0.parquet", "b").remove)
      }
      val out = txlogOutcome(
        dir,
        level,
        readSet(v, Seq(partA), Seq(files(dir, v, partA))),
        staged(removes = Seq(paths("part=a/a0.parquet")))
      )
      agree(delta, "none", out)
    }

    test(s"a blind append matching the read predicate ($name)") {
      val dir = newTable(name)
      val (v, delta) = race(dir, name) { t =>
        t.filterFiles(Seq(partIs("a")))
        Seq(add("part=a/c1.parquet", "a"))
      }(_ => Seq(add("part=a/w1.parquet", "a")))
      val out =
        txlogOutcome(dir, level, readSet(v, Seq(partA), Seq(files(dir, v, partA))), staged())
      val intended = if (name == "Serializable") "ConcurrentAppendException" else "none"
      agree(delta, intended, out)
    }
  }

  test("an add matching the read predicate from a winner that is not a blind append") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      Seq(add("part=a/c1.parquet", "a"))
    } { w => notBlind(w); Seq(add("part=a/w1.parquet", "a")) }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged()
    )
    agree(delta, "ConcurrentAppendException", out)
  }

  test("a blind append counts under WriteSerializable when the transaction changes metadata") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      t.updateMetadata(t.metadata.copy(configuration = t.metadata.configuration + ("k" -> "v")))
      Seq(add("part=a/c1.parquet", "a"))
    }(_ => Seq(add("part=a/w1.parquet", "a")))
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged().copy(changesMetadata = true)
    )
    agree(delta, "ConcurrentAppendException", out)
  }

  test("a transaction that read the whole table conflicts with any data-changing add") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.readWholeTable()
      Seq(add("part=a/c1.parquet", "a"))
    } { w => notBlind(w); Seq(add("part=b/w1.parquet", "b")) }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil, whole = true),
      staged()
    )
    agree(delta, "ConcurrentAppendException", out)
  }

  test("a file without stats counts as matching a predicate on data columns") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(GreaterThan(UnresolvedAttribute.quoted("id"), Literal(100))))
      Seq(add("part=a/c1.parquet", "a"))
    } { w => notBlind(w); Seq(add("part=b/w1.parquet", "b", stats = null)) }
    val pred = col("stats_parsed.maxValues.id") > 100
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(pred), Seq(files(dir, v, pred))),
      staged()
    )
    agree(delta, "ConcurrentAppendException", out)
  }

  test("a file read by the transaction and removed by the winner") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      Seq(add("part=a/c1.parquet", "a"))
    } { w => notBlind(w); Seq(add("part=a/a0.parquet", "a").remove) }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged()
    )
    agree(delta, "ConcurrentDeleteReadException", out)
  }

  test("several winners are checked oldest first; the error names the conflicting one") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      Seq(add("part=a/c1.parquet", "a"))
    }(
      w => { notBlind(w); Seq(add("part=b/w1.parquet", "b")) },
      w => { notBlind(w); Seq(add("part=a/a0.parquet", "a").remove) },
      w => { notBlind(w); Seq(add("part=a/w2.parquet", "a")) }
    )
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged(),
      numWinners = 3,
      conflictAt = 2
    )
    agree(delta, "ConcurrentDeleteReadException", out)
  }
}
