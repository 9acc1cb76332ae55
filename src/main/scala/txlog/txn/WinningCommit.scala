package txlog.txn

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.{MapType, StringType, StructType}

import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors
import txlog.protocol.ActionSchemas
import txlog.log.TablePath
import txlog.protocol.CommitFile
import txlog.replay.{LineParser, LogActions, LogLineReader, NonFileState, Tail}
import txlog.util.Jobs

/** A commit another writer published after a transaction's read version, as conflict checks need
  * it: its non-file actions on the driver, its file actions as DataFrames (`add.*` and `remove.*`
  * columns of [[ActionSchemas.add]] and [[ActionSchemas.remove]]).
  *
  * @param numAdds
  *   the number of adds, when the commit was read on the driver (None: not counted)
  * @param numRemoves
  *   likewise for removes
  * @param isBlindAppend
  *   `commitInfo.isBlindAppend` as the winner wrote it (None when absent)
  * @param identityOnly
  *   its metadata only raises identity high water marks (commitInfo's tag
  *   `delta.identity.schemaUpdate`)
  */
private[txlog] final case class WinningCommit(
    version: Long,
    protocol: Option[Protocol],
    metadata: Option[Metadata],
    appIds: Set[String],
    domains: Set[String],
    isBlindAppend: Option[Boolean],
    identityOnly: Boolean,
    adds: DataFrame,
    removes: DataFrame,
    numAdds: Option[Long],
    numRemoves: Option[Long]
)

private[txlog] object WinningCommit {

  /** Reads `commit`: on the driver when it is small (up to [[LogLineReader.LocalReadMaxBytesConf]]
    * bytes, 32 MiB by default: its file actions become local DataFrames), else by a Spark job that
    * keeps its file actions distributed and collects only its non-file actions (protocol, metadata,
    * txn, domainMetadata, commitInfo: a handful per commit).
    */
  /** A commit line with commitInfo's tags (which [[ActionSchemas.commitLine]] leaves out). */
  private val lineSchema: StructType = StructType(ActionSchemas.commitLine.fields.map { f =>
    if (f.name != "commitInfo") f
    else f.copy(dataType = ActionSchemas.commitInfo.add("tags", MapType(StringType, StringType)))
  })

  def read(spark: SparkSession, table: TablePath, commit: CommitFile): WinningCommit =
    if (LogLineReader.readsOnDriver(spark, commit.file.size)) onDriver(spark, table, commit)
    else distributed(spark, table, commit)

  private def onDriver(spark: SparkSession, table: TablePath, commit: CommitFile): WinningCommit = {
    val parser = new LineParser(lineSchema, Tail.timeZone(spark))
    val actions =
      LogLineReader.readOnDriver(table, Seq(commit.version -> commit.file)).map { line =>
        parser.parse(line.getString(3)).getOrElse {
          throw TxlogErrors.malformedLogFile(
            commit.file.path,
            commit.version,
            NonFileState.invalidLine(line.getLong(1), line.getString(3))
          )
        }
      }
    def of(name: String): Seq[Row] = actions.flatMap(a => Option(a.getAs[Row](name)))
    val adds = of("add")
    val removes = of("remove")
    summary(
      commit.version,
      actions.filter(a => a.isNullAt(a.fieldIndex("add")) && a.isNullAt(a.fieldIndex("remove"))),
      spark.createDataFrame(adds.asJava, ActionSchemas.add),
      spark.createDataFrame(removes.asJava, ActionSchemas.remove),
      Some(adds.size.toLong),
      Some(removes.size.toLong)
    )
  }

  private def distributed(
      spark: SparkSession,
      table: TablePath,
      commit: CommitFile
  ): WinningCommit = {
    val df = LogActions.tail(spark, table, Seq(commit), lineSchema)
    val nonFile = Jobs.named(spark, s"read the non-file actions of commit ${commit.version}") {
      df.where(
        col(LogActions.CorruptColumn).isNotNull ||
          (col("add").isNull && col("remove").isNull)
      ).collect()
    }
    nonFile.find(r => !r.isNullAt(r.fieldIndex(LogActions.CorruptColumn))).foreach { r =>
      throw TxlogErrors.malformedLogFile(
        commit.file.path,
        commit.version,
        NonFileState.invalidLine(r.getAs[Long]("idx"), r.getAs[String](LogActions.CorruptColumn))
      )
    }
    summary(
      commit.version,
      nonFile.toSeq,
      df.where(col("add").isNotNull).select("add.*"),
      df.where(col("remove").isNotNull).select("remove.*"),
      None,
      None
    )
  }

  /** The commit from its non-file action rows (fields named as in [[ActionSchemas.commitLine]]). */
  private def summary(
      version: Long,
      nonFile: Seq[Row],
      adds: DataFrame,
      removes: DataFrame,
      numAdds: Option[Long],
      numRemoves: Option[Long]
  ): WinningCommit = {
    def of(name: String): Seq[Row] = nonFile.flatMap(a => Option(a.getAs[Row](name)))
    WinningCommit(
      version,
      of("protocol").headOption.map(NonFileState.toProtocol),
      of("metaData").headOption.map(NonFileState.toMetadata),
      of("txn").flatMap(t => Option(t.getAs[String]("appId"))).toSet,
      of("domainMetadata").flatMap(d => Option(d.getAs[String]("domain"))).toSet,
      of("commitInfo").headOption.flatMap(c => Option(c.getAs[Any]("isBlindAppend"))).map {
        case b: java.lang.Boolean => b.booleanValue
        case b: Boolean           => b
        case other                => other.toString.toBoolean
      },
      of("commitInfo").headOption.exists { c =>
        Option(c.getAs[scala.collection.Map[String, String]]("tags"))
          .flatMap(_.get(txlog.protocol.IdentityColumns.SchemaUpdateTag))
          .exists(_.equalsIgnoreCase("true"))
      },
      adds,
      removes,
      numAdds,
      numRemoves
    )
  }
}
