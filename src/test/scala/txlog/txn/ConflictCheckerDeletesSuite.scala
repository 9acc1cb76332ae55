package txlog.txn

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.delta.actions.{
  DeletionVectorDescriptor,
  DomainMetadata,
  Protocol => RefProtocol,
  SetTransaction
}

import txlog.log.TablePath

/** [[ConflictCheckerSuite]]'s races, continued: removes by both, metadata and protocol changes,
  * application ids and domains. delta-spark's exception (or none) is the expected outcome.
  */
class ConflictCheckerDeletesSuite extends ConflictRaces {
  test("a file removed by both") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { _ =>
      Seq(add("part=a/a0.parquet", "a").remove)
    } { w => notBlind(w); Seq(add("part=a/a0.parquet", "a").remove) }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil),
      staged(removes = Seq(paths("part=a/a0.parquet")))
    )
    agree(delta, "ConcurrentDeleteDeleteException", out)
  }

  test("a file removed by both, once with a deletion vector and once without") {
    val dir = newTable("WriteSerializable")
    val dv = DeletionVectorDescriptor.onDiskWithRelativePath(
      java.util.UUID.fromString("11111111-2222-3333-4444-555555555555"),
      sizeInBytes = 34,
      cardinality = 1L
    )
    val (v, delta) = race(dir) { _ =>
      Seq(add("part=a/a0.parquet", "a").remove.copy(deletionVector = dv))
    } { w => notBlind(w); Seq(add("part=a/a0.parquet", "a").remove) }
    val session = spark
    import session.implicits._
    val ours = Seq(("part=a/a0.parquet", dv.storageType, dv.pathOrInlineDv))
      .toDF("path", "storageType", "pathOrInlineDv")
      .selectExpr(
        "path",
        "named_struct('storageType', storageType, 'pathOrInlineDv', pathOrInlineDv, " +
          "'offset', CAST(NULL AS INT)) AS deletionVector"
      )
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil),
      staged(removes = Seq(ours))
    )
    agree(delta, "ConcurrentDeleteDeleteException", out)
  }

  test("a metadata change by the winner") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.filterFiles(Seq(partIs("a")))
      Seq(add("part=a/c1.parquet", "a"))
    } { w =>
      w.updateMetadata(w.metadata.copy(configuration = w.metadata.configuration + ("k" -> "v")))
      Nil
    }
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Seq(partA), Seq(files(dir, v, partA))),
      staged()
    )
    agree(delta, "MetadataChangedException", out)
  }

  test("a protocol change by both") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { _ =>
      Seq(RefProtocol(1, 3), add("part=a/c1.parquet", "a"))
    }(_ => Seq(RefProtocol(1, 3)))
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil),
      staged(protocol = true)
    )
    agree(delta, "ProtocolChangedException", out)
  }

  test("the same application id") {
    val dir = newTable("WriteSerializable")
    val (v, delta) = race(dir) { t =>
      t.txnVersion("app-1")
      Seq(SetTransaction("app-1", 1L, Some(1L)), add("part=a/c1.parquet", "a"))
    }(_ => Seq(SetTransaction("app-1", 1L, Some(1L)), add("part=b/w1.parquet", "b")))
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil).copy(appIds = Set("app-1")),
      staged(appIds = Set("app-1"))
    )
    agree(delta, "ConcurrentTransactionException", out)
  }

  test("the same domain") {
    val dir = newTable("WriteSerializable", "'delta.feature.domainMetadata' = 'supported'")
    val (v, delta) = race(dir) { _ =>
      Seq(DomainMetadata("my.domain", "{}", removed = false), add("part=a/c1.parquet", "a"))
    }(_ => Seq(DomainMetadata("my.domain", """{"x":1}""", removed = false)))
    val out = txlogOutcome(
      dir,
      IsolationLevel.WriteSerializable,
      readSet(v, Nil, Nil),
      staged(domains = Set("my.domain"))
    )
    agree(delta, "ConcurrentTransactionException", out)
  }

  test("removes by both are compared by path, as the URIs they are, whatever their DVs") {
    // delta-spark compares the removes' paths (deletion vectors aside: a remove spelled with
    // another DV, or none, still removes that file in a rewrite); it compares raw path strings,
    // where a path is a URI relative to the table root or absolute (the spec), so the same file
    // spelled absolutely is the same file here.
    val dir = newTable("WriteSerializable")
    val table = TablePath.qualified(dir, spark.sessionState.newHadoopConf())
    val absolute = s"${table.root}/part=a/a0.parquet"
    val winner = Seq(
      """{"commitInfo":{"timestamp":1,"operation":"DELETE","isBlindAppend":false}}""",
      s"""{"remove":{"path":"$absolute","deletionTimestamp":1,"dataChange":true}}"""
    ).mkString("", "\n", "\n")
    java.nio.file.Files.writeString(
      java.nio.file.Paths.get(dir, "_delta_log", f"${2L}%020d.json"),
      winner
    )
    val session = spark
    import session.implicits._
    val withDv = Seq(("part=a/a0.parquet", "u", "ab^-aqEH.-t@-}", 1))
      .toDF("path", "storageType", "pathOrInlineDv", "offset")
      .selectExpr(
        "path",
        "named_struct('storageType', storageType, 'pathOrInlineDv', " +
          "pathOrInlineDv, 'offset', offset) AS deletionVector"
      )
    val level = IsolationLevel.WriteSerializable
    def outcome(removes: DataFrame) =
      txlogOutcome(dir, level, readSet(1L, Nil, Nil), staged(removes = Seq(removes)))
    assert(outcome(paths("part=a/a0.parquet")) == "CONCURRENT_DELETE_DELETE")
    assert(
      outcome(paths("part=a/a0.parquet").selectExpr("'part%3Da/a0.parquet' AS path")) ==
        "CONCURRENT_DELETE_DELETE"
    )
    assert(outcome(withDv) == "CONCURRENT_DELETE_DELETE")
    assert(outcome(paths("part=b/b0.parquet")) == "none")
  }
}
