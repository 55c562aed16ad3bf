import type { MockContext } from "../context.js";
import type { Collection } from "../store/collection.js";
import { controlPlaneErrors } from "./errors.js";
import { sha256Hex } from "../core/digest.js";
import { declareCollection } from "../store/store.js";

/** A source tarball upload URL handed out by `POST /v2/deployments/{id}/upload-url`. */
export interface SourceUpload {
  id: string;
  deployment_id: string;
  object_path: string;
  signature: string;
  /** What the PUT to the URL carried; null until it came. */
  received: { size: number; sha256: string; content_type: string | null; at: number } | null;
}

/**
 * Source tarballs the deploy CLI uploads for remote builds (`internal_source` revisions). The real
 * service hands out a signed Cloud Storage PUT URL; the mock's URL points back at itself
 * (`PUT /uploads/{upload_id}/source.tar.gz?signature=…`), keeps what was put there (size and
 * SHA-256, not the bytes: nothing is built from them) and then accepts the URL's `object_path` as
 * that deployment's `source_tarball_path`. State lives in the store, so reset() forgets uploads.
 */
export class SourceUploads {
  private readonly uploads: Collection<SourceUpload>;

  constructor(private readonly ctx: MockContext) {
    this.uploads = sourceUploadsIn(ctx);
  }

  /** A new upload URL for the deployment, on the origin the client reached. */
  issue(deploymentId: string, baseUrl: string): { upload_url: string; object_path: string } {
    const id = this.ctx.random.uuid4();
    const upload: SourceUpload = { id, deployment_id: deploymentId, object_path: `uploads/${id}/source.tar.gz`, signature: this.ctx.random.hex(64), received: null };
    this.uploads.set(id, upload);
    return { upload_url: `${baseUrl}/${upload.object_path}?signature=${upload.signature}`, object_path: upload.object_path };
  }

  /** Stores a PUT to an upload URL: 403 when the URL was not handed out (unknown id or signature). */
  receive(uploadId: string, signature: string, bytes: Buffer, contentType: string | null): void {
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.signature !== signature) throw controlPlaneErrors.uploadSignature();
    const sha256 = sha256Hex(bytes);
    this.uploads.set(uploadId, { ...upload, received: { size: bytes.length, sha256, content_type: contentType, at: this.ctx.clock.now() } });
  }

  /** What was uploaded to an object path of the deployment, if anything was. */
  uploaded(deploymentId: string, objectPath: string): SourceUpload["received"] {
    const id = /^uploads\/([0-9a-f-]{36})\/source\.tar\.gz$/.exec(objectPath)?.[1];
    const upload = id ? this.uploads.get(id) : undefined;
    return upload && upload.deployment_id === deploymentId ? upload.received : null;
  }

  /**
   * A `source_tarball_path` a request sends must be an upload of this deployment that has arrived
   * (the spec: "Must be an object path obtained from the upload-url endpoint. Arbitrary paths are
   * not accepted."): 400 otherwise. `deploymentId` is undefined on create, when none can exist yet.
   */
  requireUploaded(deploymentId: string | undefined, objectPath: unknown): void {
    if (typeof objectPath !== "string") return;
    if (deploymentId !== undefined && this.uploaded(deploymentId, objectPath)) return;
    throw controlPlaneErrors.sourceConfig(
      `'source_revision_config.source_tarball_path' must be an object path obtained from POST /v2/deployments/{deployment_id}/upload-url for this deployment, and uploaded to; got '${objectPath}'`,
    );
  }
}

export const sourceUploadsIn = declareCollection<SourceUpload>("source_uploads");
