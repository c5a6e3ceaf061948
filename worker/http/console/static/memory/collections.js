// The Collections view: document collections (shared by all agents) and their documents with
// ingest status; upload, download the original, delete, and the search the agents' tool runs
// (scores, metadata and the model).
import { api, download, upload } from "./api.js";
import { $, button, element, fill, guarded, load, row, show, timeElement } from "./dom.js";

const COLLECTIONS = "/api/documents/collections";
const TYPES = { txt: "text/plain", md: "text/markdown", markdown: "text/markdown",
  html: "text/html", htm: "text/html", pdf: "application/pdf" };
const POLL_MS = 1000;
let open = null; // the collection shown
let poll = null;

const collectionPath = (suffix) => `${COLLECTIONS}/${encodeURIComponent(open)}${suffix}`;
const documentPath = (id, suffix = "") => `/api/documents/documents/${encodeURIComponent(id)}${suffix}`;

function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1048576).toFixed(1)} MiB`;
}

function statusBadge(doc) {
  const text = doc.status === "failed" ? `failed: ${doc.errorCode}` : doc.status;
  return element("span", text, `badge ${doc.status}`);
}

export async function loadCollections() {
  let count = 0;
  await load($("collections-list").tBodies[0], async () => {
    const { collections } = await api("GET", COLLECTIONS);
    count = collections.length;
    return collections.map((c) => row(
      button(c.namespace, guarded(() => openCollection(c.namespace)), "link open-collection"),
      c.embeddingModel, c.dimensions, c.documents, timeElement(c.createdAt),
    ));
  }, "No collections yet: upload a document to start one.");
  show(`${count} collection(s).`);
}

function actions(doc) {
  const cell = element("div", undefined, "row");
  const remove = button("Delete", () => {
    cell.replaceChildren(
      button(`Confirm delete of ${doc.title}`, guarded(() => deleteDocument(doc)), "danger"),
      button("Cancel", () => cell.replaceChildren(...actions(doc).childNodes)),
    );
    cell.firstChild.focus();
  }, "danger");
  remove.setAttribute("aria-label", `Delete ${doc.title}`);
  const get = button("Download", guarded(() => downloadOriginal(doc)));
  get.setAttribute("aria-label", `Download ${doc.title}`);
  cell.append(get, remove);
  return cell;
}

async function drawDocuments() {
  let pending = false;
  await load($("documents").tBodies[0], async () => {
    const { documents } = await api("GET", collectionPath("/documents"));
    pending = documents.some((d) => d.status === "pending");
    return documents.map((d) => row(
      d.title, element("span", d.source, "id"), d.contentType, size(d.bytes), statusBadge(d),
      d.chunkCount, d.model, timeElement(d.updatedAt), actions(d),
    ));
  }, "No documents in this collection.");
  clearTimeout(poll);
  if (pending) poll = setTimeout(() => { if (open) drawDocuments().catch(() => {}); }, POLL_MS);
}

export async function openCollection(namespace) {
  open = namespace;
  $("collection-name").textContent = namespace;
  $("upload-namespace").value = namespace;
  $("collection").hidden = false;
  $("docs-hits").replaceChildren();
  $("docs-model").textContent = "";
  await drawDocuments();
  show(`Collection ${namespace}.`);
}

function contentType(file) {
  const extension = file.name.includes(".") ? file.name.split(".").pop().toLowerCase() : "";
  return Object.values(TYPES).includes(file.type) ? file.type : TYPES[extension] || file.type;
}

async function uploadDocument() {
  const file = $("upload-file").files[0];
  if (!file) throw new Error("Choose a file first.");
  const namespace = $("upload-namespace").value.trim() || "default";
  const query = new URLSearchParams({ source: $("upload-source").value.trim() || file.name });
  const title = $("upload-title-input").value.trim();
  if (title) query.set("title", title);
  const path = `${COLLECTIONS}/${encodeURIComponent(namespace)}/documents?${query}`;
  const doc = await upload(path, file, contentType(file));
  $("upload-file").value = "";
  await loadCollections();
  await openCollection(namespace);
  show(`Uploaded ${doc.title}: ${doc.status}.`);
}

async function downloadOriginal(doc) {
  const blob = await download(documentPath(doc.id, "/original"));
  const link = element("a");
  link.href = URL.createObjectURL(blob);
  link.download = doc.source.split("/").pop() || doc.id;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  show(`Downloaded ${doc.title} (${blob.size} bytes, ${blob.type}).`);
}

async function deleteDocument(doc) {
  await api("DELETE", documentPath(doc.id));
  await drawDocuments();
  show(`Deleted ${doc.title}.`);
}

function hitItem(hit) {
  const item = element("li");
  const doc = hit.document;
  item.append(
    element("div", `score ${hit.score.toFixed(3)} · ${doc.title} · chunk ${hit.chunk} · ${doc.source} · ${doc.contentType}`, "meta"),
    element("div", hit.content, "turn-part"),
  );
  return item;
}

async function searchDocuments() {
  const query = $("docs-query").value;
  const topK = Number($("docs-topk").value);
  let found = null;
  await load($("docs-hits"), async () => {
    found = await api("POST", collectionPath("/search"), { query, topK });
    return found.hits.map(hitItem);
  }, "Nothing found.");
  $("docs-model").textContent = `Model: ${found.model} · collection ${found.namespace}`;
  show(`${found.hits.length} hit(s).`);
}

export function bindCollections() {
  $("collections-refresh").addEventListener("click", guarded(loadCollections));
  const submit = (id, action) => $(id).addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(action)();
  });
  submit("upload-form", uploadDocument);
  submit("docs-search-form", searchDocuments);
}
