// The page: a CopilotKit chat on the service's agent, with held tools approved in the chat
// (useInterrupt). The thread id lives in the address (?thread=...), so a reload restores the
// same thread through the runtime's `connect`; the customer (?customer=..., a demo stand-in for
// the app's own signed-in user) reaches the service as `forwardedProps.customerId`.
import { CopilotChat, CopilotKit, useInterrupt } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import { createRoot } from "react-dom/client";

const address = new URL(window.location.href);
const customerId = address.searchParams.get("customer") ?? "demo-customer";
const agentId = address.searchParams.get("agent") ?? "desk";
if (!address.searchParams.get("thread")) {
  address.searchParams.set("thread", crypto.randomUUID());
  window.history.replaceState(null, "", address);
}
const threadId = address.searchParams.get("thread");

function heldCall(interrupt) {
  const tool = interrupt?.metadata?.tool ?? "a tool";
  return `${tool} is waiting for your approval`;
}

function Approval() {
  useInterrupt({
    agentId,
    render: ({ interrupt, resolve }) => (
      <div className="approval" data-testid="approval" data-tool-call={interrupt?.toolCallId}>
        <p>{heldCall(interrupt)}</p>
        <button type="button" onClick={() => resolve({ approved: true })}>
          Approve
        </button>
        <button type="button" onClick={() => resolve({ approved: false, message: "Declined" })}>
          Decline
        </button>
      </div>
    ),
  });
  return null;
}

function Page() {
  return (
    <CopilotKit runtimeUrl="/api/copilotkit" agentId={agentId} properties={{ customerId }}>
      <Approval />
      <CopilotChat agentId={agentId} threadId={threadId} />
    </CopilotKit>
  );
}

createRoot(document.getElementById("root")).render(<Page />);
window.copilotkitPage = { ready: true, threadId, customerId };
