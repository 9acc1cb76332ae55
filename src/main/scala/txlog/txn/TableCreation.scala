package txlog.txn

import java.io.{FileNotFoundException, IOException, InterruptedIOException}

import org.apache.spark.sql.types.StructType

import txlog.{CommitResult, Transaction}
import txlog.errors.TxlogErrors
import txlog.protocol.CheckpointFile
import txlog.protocol.CommitFile
import txlog.protocol.FileInfo
import txlog.protocol.FileNames
import txlog.table.TableContext

/** Table creation: a transaction at read version -1 committing version 0 with the protocol and
  * metadata of [[WriterRules.newTable]].
  */
private[txlog] object TableCreation {

  def create(
      ctx: TableContext,
      schema: StructType,
      partitionBy: Seq[String],
      properties: Map[String, String]
  ): CommitResult = {
    val (txn, _, _) = prepare(ctx, schema, partitionBy, properties)
    txn.commit(
      "CREATE TABLE",
      Map(
        "partitionBy" -> txlog.util.JsonText.array(partitionBy),
        "isManaged" -> "false",
        "properties" -> new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(
          {
            val m = new java.util.LinkedHashMap[String, String]()
            properties.foreach { case (k, v) => m.put(k, v) }
            m
          }
        )
      )
    )
  }

  /** The transaction creating the table, its protocol and metadata staged: TABLE_ALREADY_EXISTS
    * when the log holds commits or checkpoints, STORAGE_NOT_ATOMIC on storage without atomic
    * put-if-absent, both before anything is written.
    */
  def prepare(
      ctx: TableContext,
      schema: StructType,
      partitionBy: Seq[String],
      properties: Map[String, String]
  ): (Transaction, txlog.Protocol, txlog.Metadata) = {
    val table = ctx.table
    if (schema == null) throw TxlogErrors.invalidArgument("schema", "is null")
    val existing =
      try table.fs.listStatus(table.logDir).toSeq
      catch {
        case _: FileNotFoundException  => Seq.empty
        case e: InterruptedIOException => throw e
        // Permission denied, a store that cannot be reached: a typed, retryable failure.
        case e: IOException => throw TxlogErrors.logListingFailed(table.logDir.toString, e)
      }
    val logFiles = existing.flatMap(s => FileNames.parse(FileInfo(s))).collect {
      case c: CommitFile     => c.file.path
      case c: CheckpointFile => c.file.path
    }
    if (logFiles.nonEmpty) {
      throw TxlogErrors.tableAlreadyExists(
        table.root,
        s"Its _delta_log holds ${logFiles.size} commit or checkpoint files, e.g. ${logFiles.min}."
      )
    }
    // Refused (STORAGE_NOT_ATOMIC) before anything is created, not when committing version 0.
    txlog.storage.LogStores.forPath(table.fs, table.logDir).checkPutIfAbsent(table.logDir)
    val (p, m) = WriterRules.newTable(
      schema,
      Option(partitionBy).getOrElse(Nil),
      Option(properties).getOrElse(Map.empty),
      ctx.now()
    )
    // constraints that do not parse are refused before the log directory is made
    val txn = Transaction.creating(ctx).upgradeProtocol(p).updateMetadata(m)
    table.fs.mkdirs(table.logDir)
    (txn, p, m)
  }
}
