package txlog.python

import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Column, DataFrame, SparkSession}

import txlog.{DeltaLog, Protocol, Transaction}
import txlog.errors.TxlogErrors

/** The transaction half of [[PythonFacade]] (Python's `txlog.Transaction` and `create_table`); its
  * methods are called as `PythonFacade.<name>`.
  */
private[python] trait TransactionFacade extends FacadeArgs {

  /** Creates a table: `schema` as a DDL string or Spark's JSON schema, `partitionBy` as a JSON
    * array of column names (a name may hold a comma), `properties` table properties. Example:
    * `PythonFacade.createTable(jspark, "/data/t", "id BIGINT, d DATE", "[\"d\"]", {})`.
    */
  def createTable(
      spark: SparkSession,
      path: String,
      schema: String,
      partitionBy: String,
      properties: JMap[String, String]
  ): DeltaLog = {
    val s = Option(schema).map(_.trim).filter(_.nonEmpty).getOrElse {
      throw TxlogErrors.invalidArgument("schema", "must be a non-empty schema")
    }
    val struct =
      if (s.startsWith("{")) {
        org.apache.spark.sql.types.DataType.fromJson(s) match {
          case st: org.apache.spark.sql.types.StructType => st
          case other =>
            throw TxlogErrors.invalidArgument("schema", s"${other.simpleString} is not a struct")
        }
      } else org.apache.spark.sql.types.StructType.fromDDL(s)
    val parts = names("partitionBy", partitionBy)
    DeltaLog.createTable(spark, path, struct, parts, asScala(properties))
  }

  /** Example: `PythonFacade.startTransaction(log)`. */
  def startTransaction(log: DeltaLog): Transaction = log.startTransaction()

  /** The version the transaction read (-1 when it creates the table). Example:
    * `PythonFacade.readVersion(txn)`.
    */
  def readVersion(txn: Transaction): Long = txn.readVersion

  /** Example: `PythonFacade.readWholeTable(txn)`. */
  def readWholeTable(txn: Transaction): Transaction = { txn.readWholeTable(); txn }

  /** Stages adds, one per row. Example: `PythonFacade.addFiles(txn, df._jdf)`. */
  def addFiles(txn: Transaction, df: DataFrame): Transaction = txn.addFiles(df)

  /** Stages adds given as a JSON array of objects (a Python list of dicts), read without a Spark
    * job. Example: `PythonFacade.addFileEntries(txn, "[{\"path\": \"a.parquet\", ...}]")`.
    */
  def addFileEntries(txn: Transaction, json: String): Transaction = txn.addFileEntries(json)

  /** Stages removes given as a JSON array of objects. Example: `PythonFacade.removeFileEntries(txn,
    * "[{\"path\": \"a.parquet\", \"dataChange\": true}]")`.
    */
  def removeFileEntries(txn: Transaction, json: String): Transaction = txn.removeFileEntries(json)

  /** Stages removes, one per row. Example: `PythonFacade.removeFiles(txn, df._jdf)`. */
  def removeFiles(txn: Transaction, df: DataFrame): Transaction = txn.removeFiles(df)

  /** Stages cdc actions, one per row. Example: `PythonFacade.addCdcFiles(txn, df._jdf)`. */
  def addCdcFiles(txn: Transaction, df: DataFrame): Transaction = txn.addCdcFiles(df)

  /** Example: `PythonFacade.setDomain(txn, "myapp", "{}")`. */
  def setDomain(txn: Transaction, domain: String, configuration: String): Transaction =
    txn.setDomain(domain, configuration)

  /** Example: `PythonFacade.removeDomain(txn, "myapp")`. */
  def removeDomain(txn: Transaction, domain: String): Transaction = txn.removeDomain(domain)

  /** Files read, by a predicate (a Column, or null for every file). Example:
    * `PythonFacade.readFiles(txn, col)`.
    */
  def readFiles(txn: Transaction, predicate: Column): DataFrame =
    Option(predicate).fold(txn.readFiles())(txn.readFiles)

  /** The app id's transaction version in the read snapshot, or -1. Example:
    * `PythonFacade.txnVersion(txn, "stream")`.
    */
  def txnVersion(txn: Transaction, appId: String): Long = txn.txnVersion(appId).getOrElse(-1L)

  /** Stages metadata built on the read metadata: options `schema` (DDL or JSON), `description`, and
    * `properties` (JSON object, merged over the current ones; a null value removes a key). Example:
    * `PythonFacade.updateMetadata(txn, {"properties": "{\"delta.appendOnly\":\"true\"}"})`.
    */
  def updateMetadata(txn: Transaction, options: JMap[String, String]): Transaction = {
    val o = asScala(options)
    val base = txn.readSnapshot.map(_.metadata).getOrElse {
      throw TxlogErrors.invalidArgument("transaction", "the table does not exist yet")
    }
    val schema = o.get("schema").map { s =>
      if (s.trim.startsWith("{")) org.apache.spark.sql.types.DataType.fromJson(s).json
      else org.apache.spark.sql.types.StructType.fromDDL(s).json
    }
    val props = o.get("properties").map { json =>
      val node = mapper.readTree(json)
      var conf = base.configuration
      node.fields().asScala.foreach { e =>
        if (e.getValue.isNull) conf -= e.getKey else conf += e.getKey -> e.getValue.asText
      }
      conf
    }
    txn.updateMetadata(
      base.copy(
        schemaString = schema.getOrElse(base.schemaString),
        description = o.get("description").orElse(base.description),
        configuration = props.getOrElse(base.configuration)
      )
    )
  }

  /** Stages a protocol: options `minReaderVersion`, `minWriterVersion` and comma-separated
    * `readerFeatures` / `writerFeatures` (absent: none listed). Example:
    * `PythonFacade.upgradeProtocol(txn, {"minReaderVersion": "3", "minWriterVersion": "7"})`.
    */
  def upgradeProtocol(txn: Transaction, options: JMap[String, String]): Transaction = {
    val o = asScala(options)
    def features(key: String) =
      o.get(key).map(_.split(",").map(_.trim).filter(_.nonEmpty).toSet)
    txn.upgradeProtocol(
      Protocol(
        wholeNumber("minReaderVersion", o.getOrElse("minReaderVersion", null)).toInt,
        wholeNumber("minWriterVersion", o.getOrElse("minWriterVersion", null)).toInt,
        features("readerFeatures"),
        features("writerFeatures")
      )
    )
  }

  /** Example: `PythonFacade.setAppTransaction(txn, "stream", "7")`. */
  def setAppTransaction(txn: Transaction, appId: String, version: String): Transaction =
    txn.setAppTransaction(appId, wholeNumber("version", version))

  /** Commits; `operationParameters` as text values. Returns the result's fields as JSON
    * ([[txlog.CommitResult.summaryFields]]). Example: `PythonFacade.commit(txn, "WRITE", {})`.
    */
  def commit(
      txn: Transaction,
      operation: String,
      operationParameters: JMap[String, String]
  ): String =
    txn.commit(Option(operation).getOrElse("WRITE"), asScala(operationParameters)).toJson
}
