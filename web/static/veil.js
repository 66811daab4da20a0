// Minimal client: post the form as JSON, show the reply or the error message.
const form = document.getElementById("ask");
const answer = document.getElementById("answer");
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  answer.textContent = "Working…";
  answer.className = "";
  const body = {
    request: form.request.value,
    thread: form.thread.value,
    tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
  try {
    const response = await fetch("/api/ask", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    answer.textContent = data.reply + (data.question ? "\n\n" + data.question : "");
  } catch (error) {
    answer.textContent = error.message;
    answer.className = "error";
  }
});
