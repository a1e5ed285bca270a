// placeholder: replaced by the real handler
export const handler = async () => ({ statusCode: 501, body: '' });
